/// The members of the board's answers around what they carry (docs/protocol.md §3, §6): `status` first, then the
/// snapshot, the list, the error, the pairing window, the events page, a held wait's outcome or an answer's
/// receipt. One spelling for the board that writes them and for the phone and `aidenctl` that read them; the
/// members of the `/status` documents are those documents' own.
package enum EnvelopeKey: String, CodingKey, Sendable, CaseIterable {
    /// `ok`, `not_found` or `error`.
    case status
    /// One task's snapshot (`SnapshotView`).
    case liveActivity = "live_activity"
    /// The agent's list of tasks.
    case tasks
    /// A refusal (`WireError`).
    case error
    /// What became of a pairing request (`PairingWindowBody`).
    case pairing
    /// What the phone reported of its app.
    case appState = "app_state"
    /// An answer's receipt: `ok` (always true), the answer recorded and the task after it.
    case ok, answer, task
    /// A held wait's answer: what it waited for, and how it came out.
    case waitedFor = "for"
    case outcome
    /// The events page: the board's epoch, the log's generation, the events, where to read next, and whether
    /// events were lost (`truncated`) or the cursor belongs to another log (`reset_required`).
    case epoch, generation, events, next, truncated
    case resetRequired = "reset_required"
}

extension Dictionary where Key == String {
    /// The member an envelope names, in an object read member by member (`[String: JSONValue]`).
    package subscript(_ key: EnvelopeKey) -> Value? {
        self[key.rawValue]
    }
}
