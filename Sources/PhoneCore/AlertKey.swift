/// What an alert is deduplicated by: `(board epoch, request_id, transition)` for task transitions,
/// the connection event id for `connected` (each USB session has a new one).
package struct AlertKey: Sendable, Hashable, Codable {
    /// nil for `connected`.
    package var epoch: UInt16?
    /// The request id, or the connection id for `connected`.
    package var subject: String
    package var transition: AlertTransition

    package init(epoch: UInt16?, subject: String, transition: AlertTransition) {
        self.epoch = epoch
        self.subject = subject
        self.transition = transition
    }

    package static func connection(_ connectionID: String) -> AlertKey {
        AlertKey(epoch: nil, subject: connectionID, transition: .connected)
    }

    package static func task(epoch: UInt16, requestID: String, transition: AlertTransition) -> AlertKey {
        AlertKey(epoch: epoch, subject: requestID, transition: transition)
    }

    enum CodingKeys: String, CodingKey {
        case epoch
        case subject
        case transition
    }
}
