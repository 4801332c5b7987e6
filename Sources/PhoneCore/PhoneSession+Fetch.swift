/// The fetch: `/status` (when the connection needs naming), `current`, `events` (again on
/// `.readAgain`), the snapshots its alerts need (`PhoneSession+Alerts`), then the result goes back to
/// the scheduler.
extension PhoneSession {
    /// A `/status` read is due when no USB session names the connection and the board has not been
    /// read since it (last) became reachable.
    var needsStatus: Bool {
        !usb.isUp && (boardConnectionID == nil || reachability != .reachable)
    }

    mutating func sendCurrent(_ effects: inout [Effect]) {
        fetchStep = .current
        effects.append(.send(.current(phoneID: settings.phoneID, ifNoneMatch: answer == nil ? nil : etag)))
    }

    mutating func answered(
        _ request: BoardRequest, _ response: BoardResponse, at now: Duration,
        _ effects: inout [Effect]
    ) {
        guard let step = fetchStep, Self.matches(step, request) else {
            effects.append(.log(.debug, "ignored a late answer to \(request)"))
            return
        }
        let status: Int
        let responseETag: String?
        let body: [UInt8]
        switch response {
        case let .failed(detail):
            becameUnreachable(&effects)
            // Alerts waiting for a task read are given with what the card knows (`finishFetch`).
            finishFetch(problem: .unreachable(detail: detail), at: now, &effects)
            return
        case let .answered(code, tag, bytes, _):
            (status, responseETag, body) = (code, tag, bytes)
        }
        reachability = .reachable
        switch step {
        case .status:
            statusAnswered(status: status, body: body, &effects)
            sendCurrent(&effects)
        case .current:
            currentAnswered(status: status, etag: responseETag, body: body, at: now, &effects)
        case let .events(rereads):
            eventsAnswered(status: status, body: body, rereads: rereads, at: now, &effects)
        case let .task(requestID):
            taskAnswered(requestID, status: status, body: body, at: now, &effects)
        }
    }

    private static func matches(_ step: FetchStep, _ request: BoardRequest) -> Bool {
        switch (step, request) {
        case (.status, .status), (.current, .current), (.events, .events): true
        case let (.task(asked), .task(answered)): asked == answered
        default: false
        }
    }

    private mutating func statusAnswered(status: Int, body: [UInt8], _ effects: inout [Effect]) {
        if status == 404 {
            // A board without /status (one that speaks only the Aiden profile): name nothing rather than
            // ask on every fetch; it is asked again once the board was unreachable.
            boardConnectionID = boardConnectionID ?? ""
            return
        }
        // Not fatal: the current read says what is wrong (403, …); /status is read again next time.
        guard status == 200 else { return }
        let instance: String
        switch BoardStatusAnswer(body: body) {
        case let .instance(id):
            instance = id
        case .noInstance:
            // An older board: name nothing rather than ask on every fetch.
            effects.append(.log(.info, "the board's /status names no instance_id: connection alerts need the USB link"))
            boardConnectionID = boardConnectionID ?? ""
            return
        case .unreadable:
            return
        }
        let id = "board-" + instance
        guard id != boardConnectionID else { return }
        boardConnectionID = id
        guard !usb.isUp else { return }
        link.connectionID = id
        effects.append(.emit(.connection(link)))
        alertConnected(id, &effects)
    }

    private mutating func currentAnswered(
        status: Int, etag responseETag: String?, body: [UInt8], at now: Duration,
        _ effects: inout [Effect]
    ) {
        if status == 304 {
            guard answer != nil else {
                finishFetch(
                    problem: .httpStatus(304, message: "not modified, but nothing was fetched before"),
                    at: now, &effects)
                return
            }
        } else {
            switch BoardAnswer.current(status: status, body: body) {
            case let .success(current):
                answer = current
                etag = responseETag
                seenTasks.current(current)
            case let .failure(problem):
                finishFetch(problem: problem, at: now, &effects)
                return
            }
        }
        // The card follows the current answer even if the events read fails next.
        problem = nil
        showCard(&effects)
        if boardHasNoEvents {
            // A board without the ring: the snapshot is all there is; every Wake fetches it again.
            finishFetch(problem: nil, at: now, &effects)
            return
        }
        fetchStep = .events(rereads: 0)
        effects.append(.send(.events(policy.cursor)))
    }

    private mutating func eventsAnswered(
        status: Int, body: [UInt8], rereads: Int, at now: Duration,
        _ effects: inout [Effect]
    ) {
        if status == 404, rereads == 0 {
            // The board has no events endpoint (it speaks the Aiden profile, docs/aiden-compatibility.md): not a
            // broken board to back off from. Remembered until the board is unreachable; every Wake reads `current`.
            boardHasNoEvents = true
            effects.append(
                .log(
                    .notice,
                    "the board has no /api/live-activity/events (404): following its current task on every Wake, "
                        + "without transition alerts"))
            finishFetch(problem: nil, at: now, &effects)
            return
        }
        let events: EventsAnswer
        switch BoardAnswer.events(status: status, body: body) {
        case let .success(answer):
            events = answer
        case let .failure(problem):
            finishFetch(problem: problem, at: now, &effects)
            return
        }
        let before = policy.record
        let outputs = policy.receive(events)
        var decided: [Alert] = []
        var readAgain = false
        for output in outputs {
            switch output {
            case let .alert(alert): decided.append(alert)
            case .eventsMissed: effects.append(.emit(.eventsMissed))
            case .readAgain: readAgain = true
            }
        }
        if !decided.isEmpty {
            // Saved when they are given (`give(_:_:)`), each key before its alert.
            if recordWhileWaiting == nil { recordWhileWaiting = before }
            waitingAlerts += decided
        } else if policy.record != before {
            effects.append(.saveRecord(recordToSave))
        }
        if readAgain && rereads < settings.maximumEventRereads {
            fetchStep = .events(rereads: rereads + 1)
            effects.append(.send(.events(policy.cursor)))
            return
        }
        giveWaitingAlerts(at: now, &effects)
    }

    /// Ends the fetch: shows the problem (once per distinct problem), updates the card, tells the
    /// scheduler, and sends a pending app state once the board answers again.
    mutating func finishFetch(problem: BoardProblem?, at now: Duration, _ effects: inout [Effect]) {
        // A fetch never ends with alerts still waiting: those not given yet say what is known.
        giveWaitingAlertsAsTheyAre(&effects)
        taskReads = [:]
        fetchStep = nil
        self.problem = problem
        if let problem {
            counters.fetchesFailed += 1
            if problem != reportedProblem {
                effects.append(.emit(.problem(problem)))
                effects.append(.log(.warning, problem.description))
            }
        } else if let reportedProblem {
            effects.append(.log(.notice, "the board answers again (was: \(reportedProblem.kind))"))
        }
        reportedProblem = problem
        showCard(&effects)
        perform(scheduler.handle(problem == nil ? .fetchSucceeded : .fetchFailed, at: now), &effects)
        if problem == nil { sendAppStateIfNeeded(&effects) }
    }

    /// No HTTP answer: the connection session named after the board instance is over; the next
    /// answer reads `/status` again.
    private mutating func becameUnreachable(_ effects: inout [Effect]) {
        guard reachability != .unreachable else { return }
        reachability = .unreachable
        etag = nil
        // What comes back may be another board (or this one upgraded): ask it for its ring again.
        boardHasNoEvents = false
        guard boardConnectionID != nil else { return }
        boardConnectionID = nil
        if !usb.isUp, link.connectionID != nil {
            link.connectionID = nil
            effects.append(.emit(.connection(link)))
        }
    }
}
