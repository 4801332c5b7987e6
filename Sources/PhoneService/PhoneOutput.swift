import FoundationEssentials
import PhoneCore

/// Where the client's events go: `--json` lines, or the card on a terminal.
package protocol PhoneOutput: Sendable {
    /// Called on the client's serial path, in order; `date` is the wall clock for `at`.
    func emit(_ event: PhoneEvent, at date: Date)
    /// Waits (briefly) until what was emitted is written out: at shutdown, so the last card and
    /// alert are not lost.
    func flush()
}

extension PhoneOutput {
    package func flush() {}
}
