import BoardAPI
import WakeProtocol
import WireFormat

/// Where the board's Wakes go: the loopback UDP transport (`LoopbackWakeSink`) or the BlueZ GATT peripheral
/// (`BlueZWakeSink`). `send` must not block (the engine calls it on the executor, for `BoardSession`, its lock held): a transport
/// that needs to wait queues the envelope and returns.
package protocol WakeSink: Sendable {
    /// "loopback" or "bluez", for status pages.
    var transportName: String { get }
    /// Sends one envelope; a failure is counted and logged, and the next change sends again.
    func send(_ envelope: WakeEnvelope) -> Result<Void, WakeSinkError>
    /// What the board can honestly say about the radio side (`/api/bluetooth/status`).
    func bluetoothFacts() -> BluetoothFacts
    /// Opens (or extends) the Bluetooth pairing window (`POST /api/bluetooth/pairing/start`) and says what came
    /// of it (`.failed` also when this transport cannot pair at all); `phone` is the asking phone host's
    /// Bluetooth address, whose stale bond the board forgets. May wait for the daemon's executor, where the
    /// peripheral decides: never call it from there.
    func openPairingWindow(for duration: Duration, forgetting phone: String?) -> PairingOutcome
    /// The same, `unlessBonded`: for a phone that still holds its half of a bond and asks because its links
    /// fail; `.bondKept` while the board holds a bond with `phone` (then no window opens).
    func openPairingWindow(for duration: Duration, forgetting phone: String?, unlessBonded: Bool) -> PairingOutcome
    /// Calls `changed` (from any thread) after each event that may have changed `bluetoothFacts()`, so what shows
    /// them (the status line) follows without looking again on a timer. Set once, when the engine starts reporting
    /// its status; what changed before then is in the line it sends first.
    func observeFacts(_ changed: @escaping @Sendable () -> Void)
}

extension WakeSink {
    /// A transport whose facts never change has nothing to report.
    package func observeFacts(_ changed: @escaping @Sendable () -> Void) {}

    /// A transport without bonds has none to keep.
    package func openPairingWindow(
        for duration: Duration, forgetting phone: String?, unlessBonded: Bool
    ) -> PairingOutcome {
        openPairingWindow(for: duration, forgetting: phone)
    }
}

/// Why a Wake could not go out.
package struct WakeSinkError: Error, Equatable, Sendable, CustomStringConvertible {
    package let message: String

    package init(_ message: String) { self.message = message }

    package var description: String { message }
}
