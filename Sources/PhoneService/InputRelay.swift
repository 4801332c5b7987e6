import PhoneCore
import Synchronization

/// Hands inputs to the client once it exists. The USB watcher reports boards already plugged in
/// while it starts, which is before the client can be built (the client needs to know whether USB
/// is watched at all); those inputs wait here and go in first.
final class InputRelay: Sendable {
    private struct State {
        var client: PhoneClient?
        var buffered: [PhoneSession.Input] = []
    }

    private let state = Mutex(State())

    func submit(_ input: PhoneSession.Input) {
        let client = state.withLock { state -> PhoneClient? in
            if state.client == nil { state.buffered.append(input) }
            return state.client
        }
        client?.submit(input)
    }

    func attach(_ client: PhoneClient) {
        let buffered = state.withLock { state -> [PhoneSession.Input] in
            state.client = client
            defer { state.buffered.removeAll() }
            return state.buffered
        }
        buffered.forEach(client.submit)
    }
}
