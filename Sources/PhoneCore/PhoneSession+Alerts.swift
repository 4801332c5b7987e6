import WireFormat

/// Task alerts in words: each is given with its task's title and, while the task is still where
/// the transition took it, the step and action of a handoff or the error of a failure.
///
/// The card's snapshot (the `current` answer just read) says so when the alert is about the task on
/// the card and the task is still there, or has ended (an ended task no longer changes). Otherwise
/// (another task, or one that moved between the `current` and the `events` read) the fetch reads
/// that task (`GET /api/live-activity/status?request_id=R`) before giving the alert. Alerts keep the
/// ring's order: one waiting for its read holds those after it, for one request on the cable; the
/// `connected` alert does not wait. A read that gives nothing gives the alert with what the card
/// knows. The record saved meanwhile holds only the keys of the alerts already given
/// (`recordWhileWaiting`), each saved before its alert, so nothing repeats and a restart loses
/// nothing that waited.
extension PhoneSession {
    /// The record to save now.
    var recordToSave: AlertRecord { recordWhileWaiting ?? policy.record }

    /// Gives the waiting alerts whose words are known, in order, and reads the task of the first one
    /// that needs it; ends the fetch when none waits.
    mutating func giveWaitingAlerts(at now: Duration, _ effects: inout [Effect]) {
        var ready: [Alert] = []
        var read: String?
        while let alert = waitingAlerts.first {
            if let id = alert.requestID, needsRead(alert, id) {
                read = id
                break
            }
            ready.append(alert.describing(knownSnapshot(of: alert.requestID)))
            waitingAlerts.removeFirst()
        }
        give(ready, &effects)
        guard let read else {
            finishFetch(problem: nil, at: now, &effects)
            return
        }
        fetchStep = .task(requestID: read)
        effects.append(.send(.task(requestID: read)))
    }

    /// Gives every waiting alert with what is known now (the read failed, or the fetch ends).
    mutating func giveWaitingAlertsAsTheyAre(_ effects: inout [Effect]) {
        let alerts = waitingAlerts.map { $0.describing(knownSnapshot(of: $0.requestID)) }
        waitingAlerts = []
        give(alerts, &effects)
    }

    mutating func taskAnswered(
        _ requestID: String, status: Int, body: [UInt8], at now: Duration, _ effects: inout [Effect]
    ) {
        let name = BoardText.line(requestID, limit: 64) ?? "?"
        // The same envelope as `current`: `{"status":"ok","live_activity":{…}}`.
        switch BoardAnswer.current(status: status, body: body) {
        case let .success(.snapshot(task, others)) where task.requestID == requestID:
            taskReads[requestID] = task
            seenTasks.saw(task, others: others)
        case .success(.snapshot):
            taskReads[requestID] = .some(nil)
            effects.append(.log(.warning, "the board answered the read of task \(name) with another task"))
        case .success(.notFound):
            taskReads[requestID] = .some(nil)
            seenTasks.remove(requestID)
            effects.append(.log(.info, "task \(name) is gone from the board: its alert says what the card knows"))
        case let .failure(problem):
            taskReads[requestID] = .some(nil)
            effects.append(
                .log(.info, "task \(name) could not be read (\(problem.kind)): its alert says what the card knows"))
        }
        giveWaitingAlerts(at: now, &effects)
    }

    /// The alert needs its task read: the card does not show the task where the transition left it,
    /// this fetch has not read it yet, and the fetch may still read.
    private func needsRead(_ alert: Alert, _ requestID: String) -> Bool {
        guard taskReads[requestID] == nil, taskReads.count < settings.maximumTaskReads else { return false }
        guard let task = cardSnapshot(of: requestID) else { return true }
        let ended = task.status?.known?.isTerminal == true
        return !ended && !alert.transition.isShown(by: task)
    }

    /// What this fetch knows of the task: what it read for an alert, else the card's snapshot.
    private func knownSnapshot(of requestID: String?) -> SnapshotView? {
        guard let requestID else { return nil }
        if let read = taskReads[requestID], let task = read { return task }
        return cardSnapshot(of: requestID)
    }

    func cardSnapshot(of requestID: String) -> SnapshotView? {
        guard case let .snapshot(task, _)? = answer, task.requestID == requestID else { return nil }
        return task
    }

    /// Saves the record with these alerts' keys, then gives them.
    private mutating func give(_ alerts: [Alert], _ effects: inout [Effect]) {
        guard !alerts.isEmpty else { return }
        if waitingAlerts.isEmpty {
            recordWhileWaiting = nil
        } else {
            for alert in alerts { recordWhileWaiting?.insert(alert.key) }
        }
        effects.append(.saveRecord(recordToSave))
        effects += alerts.map(Effect.alert)
    }
}
