import FoundationEssentials
import PhoneCore

/// `--json`: one `PhoneEvent` object per line on stdout, written (flushed) as it happens. Alerts
/// are events too, so this is also the `--json` alert notifier.
package struct JSONLinesOutput: PhoneOutput, AlertNotifier {
    private let channel: OutputChannel
    private let clock: any ClientClock
    private let encoder = PhoneEventEncoder()

    package init(channel: OutputChannel = .standardOutput, clock: any ClientClock = SystemClientClock()) {
        self.channel = channel
        self.clock = clock
    }

    package func emit(_ event: PhoneEvent, at date: Date) {
        channel.write(encoder.line(for: event, at: date) + "\n")
    }

    package func deliver(_ alert: Alert) {
        emit(.alert(alert), at: clock.wallNow())
    }
}
