extension Command {
    /// The request this command makes (for `task run`, its start; for `events`, the first page; for `task wait`,
    /// the board's wait held for no time), or nil for
    /// `help` and `--version`. Every write carries an `Idempotency-Key`: the one given, a start's derived
    /// `start:R`, or `idempotencyKey`, fresh per invocation, so a write retried after a lost connection is
    /// answered instead of applied twice.
    package func request(idempotencyKey: String) -> AgentRequest? {
        switch self {
        case .help, .version, .completion, .mcp, .hook:
            return nil
        case let .taskStart(start):
            return Self.startRequest(start, idempotencyKey: idempotencyKey)
        case let .taskRun(run):
            return Self.startRequest(run.start, idempotencyKey: idempotencyKey)
        case let .taskUpdate(update):
            var body = RequestBodies.Update(
                taskTitle: update.title, phoneID: update.phoneID, status: update.status, phase: update.phase,
                currentStep: update.step, currentAction: update.action, currentTarget: update.target,
                currentApp: update.app, lastToolName: update.tool, lastError: update.error,
                progress: update.progress, showsProgress: update.showsProgress, canStop: update.canStop,
                requiresApp: update.requiresApp, staleAfterSeconds: update.staleAfterSeconds,
                abandonAfterSeconds: update.abandonAfterSeconds, expectedRevision: update.expectedRevision)
            body.fields.toolStatus = update.toolStatus
            body.fields.locale = update.locale
            return AgentRequest(
                method: "PATCH", path: Self.taskPath(update.requestID),
                headers: Self.writeHeaders(key: update.idempotencyKey ?? idempotencyKey),
                body: RequestBodies.encode(body))
        case let .taskHeartbeat(requestID):
            // No body and no key: a heartbeat changes nothing, so sending it twice is the same as once.
            return AgentRequest(method: "POST", path: Self.taskPath(requestID) + "/heartbeat", headers: [Self.accept])
        case let .taskEnd(end):
            let body = RequestBodies.End(
                status: end.status, lastError: end.error ?? "", dismissAfterSeconds: end.dismissAfterSeconds,
                expectedRevision: end.expectedRevision)
            return AgentRequest(
                method: "POST", path: Self.taskPath(end.requestID) + "/end",
                headers: Self.writeHeaders(key: end.idempotencyKey ?? idempotencyKey),
                body: RequestBodies.encode(body))
        case .taskList:
            return AgentRequest(method: "GET", path: "/v1/tasks", headers: [Self.accept])
        case let .taskShow(requestID):
            return AgentRequest(method: "GET", path: Self.taskPath(requestID), headers: [Self.accept])
        case let .taskWait(wait):
            return TaskWait(requestID: wait.requestID, target: wait.target).request(holdingFor: 0)
        case let .events(events):
            return EventsCursor(since: events.since).request
        case .status:
            return AgentRequest(method: "GET", path: "/v1/status", headers: [Self.accept])
        }
    }

    /// Whether sending the same request again after a lost connection is harmless: reads, heartbeats (news
    /// that changes nothing), and writes, whose idempotency key makes the daemon answer a write it already
    /// applied instead of applying it again.
    package var retriesAfterConnectionLoss: Bool {
        switch self {
        case .taskStart, .taskRun, .taskUpdate, .taskHeartbeat, .taskEnd, .taskList, .taskShow, .taskWait, .events,
            .status:
            true
        case .help, .version, .completion, .mcp, .hook: false
        }
    }

    private static func startRequest(_ start: Start, idempotencyKey: String) -> AgentRequest {
        var body = RequestBodies.Start(
            taskTitle: start.title, requestID: start.requestID, phoneID: start.phoneID, status: start.status,
            phase: start.phase, currentStep: start.step, currentAction: start.action, currentTarget: start.target,
            currentApp: start.app, lastToolName: start.tool, lastError: start.error, progress: start.progress,
            showsProgress: start.showsProgress, canStop: start.canStop, requiresApp: start.requiresApp,
            staleAfterSeconds: start.staleAfterSeconds, abandonAfterSeconds: start.abandonAfterSeconds)
        body.fields.toolStatus = start.toolStatus
        body.fields.locale = start.locale
        return AgentRequest(
            method: "POST", path: "/v1/tasks",
            headers: writeHeaders(key: start.idempotencyKey(fallback: idempotencyKey)),
            body: RequestBodies.encode(body))
    }

    private static let accept = AgentRequest.Header("Accept", "application/json")

    private static func writeHeaders(key: String) -> [AgentRequest.Header] {
        [accept, AgentRequest.Header("Content-Type", "application/json"), AgentRequest.Header("Idempotency-Key", key)]
    }

    static func taskPath(_ requestID: String) -> String {
        "/v1/tasks/" + PathSegment.encode(requestID)
    }
}
