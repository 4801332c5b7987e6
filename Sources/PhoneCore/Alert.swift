/// One alert the client should show (a notification, a bell, an `alert` event).
package struct Alert: Sendable, Equatable {
    package var transition: AlertTransition
    /// The task, for task transitions.
    package var requestID: String?
    /// The USB session, for `connected`.
    package var connectionID: String?
    /// The board epoch, for task transitions.
    package var epoch: UInt16?
    /// The ring cursor of the board event that caused it.
    package var eventID: UInt64?
    /// When the board recorded the transition (board clock, as sent).
    package var boardTime: String?

    package init(
        transition: AlertTransition, requestID: String? = nil, connectionID: String? = nil, epoch: UInt16? = nil,
        eventID: UInt64? = nil, boardTime: String? = nil
    ) {
        self.transition = transition
        self.requestID = requestID
        self.connectionID = connectionID
        self.epoch = epoch
        self.eventID = eventID
        self.boardTime = boardTime
    }
}
