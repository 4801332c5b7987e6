import Dispatch
import Synchronization
import WireFormat

/// One request for the board's pairing window, as the shell waits for its answer: the lifecycle answers a new
/// window only once bluetoothd confirmed it is ready (`PeripheralLifecycle.openPairingWindow`), which takes
/// bus round trips. The board engine's pairing lane waits on it (bounded), never an HTTP listener's thread; a
/// test reads `answer` after draining.
package final class PairingRequest: Sendable {
    package let number: UInt64
    private let value = Mutex<PairingOutcome?>(nil)
    private let done = DispatchSemaphore(value: 0)

    init(number: UInt64) {
        self.number = number
    }

    /// The answer, once there is one.
    package var answer: PairingOutcome? { value.withLock { $0 } }

    /// Waits at most `timeout` for the answer (nil: none came). Never call it from the executor.
    package func wait(timeout: Duration) -> PairingOutcome? {
        if let answer { return answer }
        let (seconds, attoseconds) = timeout.components
        let nanoseconds = Int(clamping: seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
        _ = done.wait(timeout: .now() + .nanoseconds(nanoseconds))
        return answer
    }

    /// The first answer counts; later ones change nothing.
    func resolve(_ answer: PairingOutcome) {
        let first = value.withLock { current -> Bool in
            guard current == nil else { return false }
            current = answer
            return true
        }
        if first { done.signal() }
    }
}
