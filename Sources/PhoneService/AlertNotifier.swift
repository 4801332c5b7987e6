import PhoneCore

/// Where alerts go. The terminal and `--json` outputs are notifiers; a desktop notifier (D-Bus
/// `org.freedesktop.Notifications`) plugs in here too. `deliver` is called once per alert, after
/// the alert record that suppresses its repetition has been written (`PhoneClient` holds the alert
/// until then), on the client's serial path: it must not block for long (hand slow work to your own
/// queue).
package protocol AlertNotifier: Sendable {
    func deliver(_ alert: Alert)
}
