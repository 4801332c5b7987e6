import PhoneCore

/// Where alerts go as lines: the terminal and `--json` outputs are the notifiers (the desktop's notifications
/// show alerts as urgent updates of their cards, through `CardSurface`). `deliver` is called once per alert, after
/// the alert record that suppresses its repetition has been written (`PhoneClient` holds the alert
/// until then), on the client's serial path: it must not block for long (hand slow work to a `Lane`).
package protocol AlertNotifier: Sendable {
    func deliver(_ alert: Alert)
}
