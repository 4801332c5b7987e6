import Foundation
import NetworkAddress
import Platform
import Testing
import WakeProtocol

@testable import PhoneService

/// The real UDP receiver on loopback (bounded waits, no timing assertions).
@Suite struct LoopbackWakeSourceTests {
    @Test func deliversDatagramsWithTheirTrueLengthAndStopsPromptly() throws {
        let source = LoopbackWakeSource(endpoint: try SocketEndpoint("127.0.0.1:0"))
        let received = LockedEvents()
        try source.start { received.append($0) }
        let endpoint = try #require(source.localEndpoint)
        #expect(endpoint.port != 0)
        #expect(received.items == [.state(.connected)], "listening once start returns")

        let sender = try UDPDatagramSocket(sendingTo: endpoint)
        let envelope = WakeEnvelope(reason: .liveActivity, epoch: 9, sequence: 3)
        _ = sender.send(envelope.bytes, to: endpoint)
        _ = sender.send([1, 2, 3], to: endpoint)
        _ = sender.send(Array(repeating: 7, count: 100), to: endpoint)
        #expect(received.wait(count: 4))
        let values = received.items.dropFirst()
        #expect(
            Array(values) == [
                .value(envelope.bytes, fullLength: 12), .value([1, 2, 3], fullLength: 3),
                .value(Array(repeating: 7, count: 64), fullLength: 100),
            ])
        #expect(source.facts.received == 3)

        let stopping = Date()
        source.stop()
        #expect(Date().timeIntervalSince(stopping) < 5, "stop wakes the receiver instead of waiting out its timeout")
        _ = sender.send(envelope.bytes, to: endpoint)
        #expect(received.items.count == 4, "nothing is delivered after stop")
    }

    @Test func aPortInUseIsAClearStartError() throws {
        let first = LoopbackWakeSource(endpoint: try SocketEndpoint("127.0.0.1:0"))
        try first.start { _ in }
        defer { first.stop() }
        let taken = try #require(first.localEndpoint)
        let second = LoopbackWakeSource(endpoint: taken)
        #expect(throws: WakeSourceError.self) { try second.start { _ in } }
        do {
            try second.start { _ in }
        } catch {
            #expect(error.description.contains("cannot receive Wakes on \(taken)"))
        }
    }
}

final class LockedEvents: @unchecked Sendable {  // guarded by `lock`
    private let lock = NSLock()
    private var storage: [WakeSourceEvent] = []
    func append(_ event: WakeSourceEvent) { lock.withLock { storage.append(event) } }
    var items: [WakeSourceEvent] { lock.withLock { storage } }

    /// Waits (bounded) until `count` events arrived.
    func wait(count: Int, seconds: Double = 10) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if items.count >= count { return true }
            usleep(2_000)
        }
        return items.count >= count
    }
}
