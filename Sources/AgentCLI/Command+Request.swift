extension Command {
    /// The request this command makes, or nil for `help`. `idempotencyKey` is sent with `task start` only,
    /// so that a start retried after a lost connection returns the first result instead of starting twice.
    package func request(idempotencyKey: String) -> AgentRequest? {
        let json = AgentRequest.Header("Content-Type", "application/json")
        let accept = AgentRequest.Header("Accept", "application/json")
        switch self {
        case .help:
            return nil
        case let .taskStart(start):
            let body = RequestBodies.Start(
                taskTitle: start.title, requestID: start.requestID, phoneID: start.phoneID,
                currentStep: start.step, phase: start.phase, progress: start.progress)
            return AgentRequest(
                method: "POST", path: "/v1/tasks",
                headers: [accept, json, AgentRequest.Header("Idempotency-Key", idempotencyKey)],
                body: RequestBodies.encode(body))
        case let .taskUpdate(update):
            let body = RequestBodies.Update(
                currentStep: update.step, phase: update.phase, currentAction: update.action,
                currentTarget: update.target, currentApp: update.app, lastToolName: update.tool,
                progress: update.progress, status: update.status,
                expectedRevision: update.expectedRevision)
            return AgentRequest(
                method: "PATCH", path: Self.taskPath(update.requestID), headers: [accept, json],
                body: RequestBodies.encode(body))
        case let .taskEnd(end):
            let body = RequestBodies.End(status: end.status, lastError: end.error ?? "")
            return AgentRequest(
                method: "POST", path: Self.taskPath(end.requestID) + "/end", headers: [accept, json],
                body: RequestBodies.encode(body))
        case .taskList:
            return AgentRequest(method: "GET", path: "/v1/tasks", headers: [accept])
        case let .taskShow(requestID):
            return AgentRequest(method: "GET", path: Self.taskPath(requestID), headers: [accept])
        case .status:
            return AgentRequest(method: "GET", path: "/v1/status", headers: [accept])
        }
    }

    /// Whether sending the same request again after a lost connection is harmless: reads, and a start
    /// (its idempotency key makes the daemon answer the first result). Updates and ends are not repeated.
    package var retriesAfterConnectionLoss: Bool {
        switch self {
        case .taskStart, .taskList, .taskShow, .status: true
        case .help, .taskUpdate, .taskEnd: false
        }
    }

    private static func taskPath(_ requestID: String) -> String {
        "/v1/tasks/" + PathSegment.encode(requestID)
    }
}
