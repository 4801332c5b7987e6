/// A structured journal field the daemons attach to a log line, so an operator can select lines by it:
/// `journalctl -u aiden-board REQUEST_ID=…`. The raw value is the journal field name (upper case, digits and
/// underscores, as journald requires); only these names are ever sent, so no text from outside can name a field.
package enum LogField: String, Sendable, Hashable, CaseIterable, Comparable {
    /// The task a line is about (its `request_id`).
    case requestID = "REQUEST_ID"
    /// The alert-worthy change a line reports: `started`, `handoff`, `foreground_recovery`, `completed`, ….
    case transition = "TRANSITION"
    /// Who asked: an HTTP peer address, or a BlueZ device.
    case peer = "PEER"
    /// The sequence number of a Wake sent or received.
    case wakeSequence = "WAKE_SEQ"

    /// In declaration order, so entries list their fields the same way every time.
    package static func < (a: LogField, b: LogField) -> Bool {
        allCases.firstIndex(of: a)! < allCases.firstIndex(of: b)!
    }
}
