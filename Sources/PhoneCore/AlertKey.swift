/// What an alert is deduplicated by: the board event that caused it, `(board epoch, ring generation, event
/// id)` (ids restart with each generation), for task
/// transitions (so each new request for input alerts, and each event once), the connection event id for
/// `connected` (each USB session has a new one). The request id and transition ride along for people
/// reading the record.
///
/// A record written before event ids were keys holds `(epoch, request id, transition)` keys without
/// `event_id`; they still load, and `AlertRecord.legacyCursor` says which events they cover.
package struct AlertKey: Sendable, Hashable, Decodable {
    /// nil for `connected`.
    package var epoch: UInt16?
    /// The request id, or the connection id for `connected`.
    package var subject: String
    package var transition: AlertTransition
    /// The board event's id in its ring; nil for `connected` and in keys of an older record.
    package var eventID: UInt64?
    /// The ring's generation the event id belongs to, when the board named one.
    package var generation: String?

    package init(
        epoch: UInt16?, subject: String, transition: AlertTransition, eventID: UInt64? = nil,
        generation: String? = nil
    ) {
        self.epoch = epoch
        self.subject = subject
        self.transition = transition
        self.eventID = eventID
        self.generation = generation
    }

    package static func connection(_ connectionID: String) -> AlertKey {
        AlertKey(epoch: nil, subject: connectionID, transition: .connected)
    }

    package static func task(
        epoch: UInt16, requestID: String, transition: AlertTransition, eventID: UInt64? = nil,
        generation: String? = nil
    ) -> AlertKey {
        AlertKey(epoch: epoch, subject: requestID, transition: transition, eventID: eventID, generation: generation)
    }

    enum CodingKeys: String, CodingKey {
        case epoch
        case subject
        case transition
        case eventID = "event_id"
        case generation
    }
}
