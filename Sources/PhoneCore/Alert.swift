import WireFormat

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
    /// The generation of the ring the event came from (part of the key), when the board named it.
    package var generation: String?
    /// What the alert says about the task, from its snapshot (`describing(_:)`), each cleaned and
    /// bounded by `BoardText`: nil when the client had no snapshot of the task or it did not say.
    package var title: String?
    /// For a handoff the task still waits on: the step the person is asked to do, and the action wanted
    /// (`current_action`, as named by the board).
    package var step: String?
    package var action: String?
    /// For a failure: the task's `last_error`.
    package var error: String?
    /// The task can be stopped (`can_stop` of an active task, from its snapshot): its notification offers
    /// a Stop button.
    package var canStop = false

    package init(
        transition: AlertTransition, requestID: String? = nil, connectionID: String? = nil, epoch: UInt16? = nil,
        eventID: UInt64? = nil, boardTime: String? = nil, title: String? = nil, step: String? = nil,
        action: String? = nil, error: String? = nil
    ) {
        self.transition = transition
        self.requestID = requestID
        self.connectionID = connectionID
        self.epoch = epoch
        self.eventID = eventID
        self.boardTime = boardTime
        self.title = title
        self.step = step
        self.action = action
        self.error = error
    }

    /// The answers its notification offers (docs/phone-client.md, "Notification buttons"): `done` and `refuse` on a handoff or a
    /// foreground recovery (after `stop` when the task can be stopped), `dismiss` on an ended task.
    package var answers: [Answer] {
        switch transition {
        case .connected: []
        case .handoff, .foregroundRecovery: (canStop ? [.stop] : []) + [.done, .refuse]
        case .completed, .failed: [.dismiss]
        }
    }

    /// What the alert is deduplicated by.
    package var key: AlertKey {
        switch transition {
        case .connected: .connection(connectionID ?? "")
        case .handoff, .foregroundRecovery, .completed, .failed:
            .task(
                epoch: epoch ?? 0, requestID: requestID ?? "", transition: transition, eventID: eventID ?? 0,
                generation: generation)
        }
    }
}
