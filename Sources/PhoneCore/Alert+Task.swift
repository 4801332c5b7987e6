import WireFormat

/// An alert told with what the task's snapshot says: its title first, then the step and action of a
/// handoff or the error of a failure.
extension Alert {
    /// Most characters kept of each text (Unicode scalars, `...` included): an alert is one line on a
    /// terminal and a few in a notification, whatever the board sends.
    package static let titleLimit = 80
    package static let stepLimit = 160
    package static let actionLimit = 64
    package static let errorLimit = 240

    /// This alert with `task`'s words, if `task` is its task (else unchanged). The title is taken from
    /// any snapshot of the task; the step, action and error only while the task is still where the
    /// transition took it (`AlertTransition.isShown(by:)`): a handoff already over has no step to ask for.
    package func describing(_ task: SnapshotView?) -> Alert {
        guard let task, let requestID, task.requestID == requestID else { return self }
        var alert = self
        alert.title = BoardText.line(task.taskTitle, limit: Self.titleLimit)
        guard transition.isShown(by: task) else { return alert }
        alert.canStop = task.canStop == true && task.status?.known?.isTerminal != true
        switch transition {
        case .handoff:
            alert.step = BoardText.line(task.currentStep, limit: Self.stepLimit)
            alert.action = BoardText.line(task.currentAction, limit: Self.actionLimit)
        case .failed:
            alert.error = BoardText.line(task.lastError, limit: Self.errorLimit)
        case .connected, .foregroundRecovery, .completed:
            break
        }
        return alert
    }
}
