import FoundationEssentials
import PhoneCore

/// `--json`: one `PhoneEvent` object per line on stdout, written (flushed) as it happens. Alerts
/// are events too, so this is also the `--json` alert notifier.
package struct JSONLinesOutput: PhoneOutput, AlertNotifier {
    private let channel: OutputChannel
    private let wallClock: @Sendable () -> Date
    private let encoder = PhoneEventEncoder()

    /// `wallClock` gives alerts their `at` (the runtime's wall clock in the daemon).
    package init(channel: OutputChannel = .standardOutput, wallClock: @escaping @Sendable () -> Date) {
        self.channel = channel
        self.wallClock = wallClock
    }

    package func emit(_ event: PhoneEvent, at date: Date) {
        channel.write(encoder.line(for: event, at: date) + "\n")
    }

    /// Waits until every line so far is written (shutdown).
    package func flush() {
        channel.flush()
    }

    package func deliver(_ alert: Alert) {
        emit(.alert(alert), at: wallClock())
    }
}
