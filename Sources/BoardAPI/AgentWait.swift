import LiveActivity
import WireFormat

/// A long-poll of the agent API (docs/protocol.md §6.6): `GET /v1/tasks/{request_id}/wait?for=…&timeout=…`, or
/// `GET /v1/events?…&wait=…`. The router answers at once when the board already decides it; otherwise it hands
/// this to the shell, which holds the request without holding its thread, asks `answer(on:)` again after every
/// change it publishes, and answers `timedOut(on:)` when `timeout` has passed.
///
/// A task's wait is decided on the task itself, never on the ring: a stop or an answer is on the snapshot
/// (`answer`) until the task ends, so none is missed however many events the ring dropped.
package struct AgentWait: Sendable {
    enum Subject: Sendable {
        case task(requestID: String, target: WaitTarget)
        case events(EventsQuery)
    }

    let subject: Subject
    /// How long the board holds the request at most (0…`longestSeconds`).
    package let timeout: Duration
    /// The request, for its `If-None-Match`.
    let request: HTTPRequest

    /// The longest a wait may be held, so a waiting connection gives its slot back within a minute whether or not
    /// its client is still there (the server closes one whose client hangs up, but not one whose client vanished
    /// without closing), and the writer keeps no wait longer (it is not told of a hang-up).
    package static let longestSeconds = 60
    /// A task's wait without `timeout`.
    static let defaultSeconds = 30

    /// The answer on `state` now, nil while it must wait.
    package func answer(on state: inout BoardState) -> HTTPResponse? {
        switch subject {
        case let .task(id, target):
            guard let snapshot = state.store.task(id: id) else {
                return Responses.error(TaskStoreError.notFound(id: id).jsonError)
            }
            return Self.outcome(of: target, on: snapshot, in: state.store).map { Self.taskAnswer(target, $0, snapshot) }
        case let .events(query):
            let page = state.store.events(since: query.since, generation: query.generation)
            guard !page.events.isEmpty || page.truncated || page.resetRequired else { return nil }
            return Responses.json(200, query.body(page, epoch: state.epoch), etag: state.storeETag, request: request)
        }
    }

    /// The answer when `timeout` has passed with nothing decided: the task as it is (`"outcome":"timeout"`), or an
    /// events page with no event.
    package func timedOut(on state: inout BoardState) -> HTTPResponse {
        if let decided = answer(on: &state) { return decided }
        switch subject {
        case let .task(id, target):
            guard let snapshot = state.store.task(id: id) else {
                return Responses.error(TaskStoreError.notFound(id: id).jsonError)
            }
            return Self.taskAnswer(target, .timeout, snapshot)
        case let .events(query):
            let body = query.body(store: state.store, epoch: state.epoch)
            return Responses.json(200, body, etag: state.storeETag, request: request)
        }
    }

    /// What the task decides for a wait on it: `came` when the awaited is on it, `ended` when it ended first, nil
    /// while it may still come. A `stop` stays on the task until it ends; `done` and `refuse` until the agent asks
    /// for input again, which it does not do while it waits. The end clears the answer from the task, so for an
    /// ended task the ring tells whether one was recorded before the end (a stop that ended the task came, for a
    /// wait that asked a moment too late); when the ring no longer holds it, the task `ended` first.
    static func outcome(of target: WaitTarget, on snapshot: TaskSnapshot, in store: TaskStore) -> WaitOutcome? {
        let ended = snapshot.status.isTerminal
        switch target {
        case .stop:
            if snapshot.answer?.answer == .stop { return .came }
        case .answer:
            if let answer = snapshot.answer?.answer, answer == .done || answer == .refuse { return .came }
        case .end:
            return ended ? .came : nil
        }
        guard ended else { return nil }
        return recordedBeforeEnd(target, of: snapshot.requestID, in: store) ? .came : .ended
    }

    /// For an ended task: whether the ring holds a stop (`stop`), or a `done` or `refuse` no later request for input
    /// cleared (`answer`), since the task's start.
    static func recordedBeforeEnd(_ target: WaitTarget, of requestID: String, in store: TaskStore) -> Bool {
        for event in store.events(since: 0, generation: nil).events.reversed() where event.requestID == requestID {
            switch (target, event.transition) {
            case (.stop, .stopRequested), (.answer, .answered): return true
            case (_, .started), (.answer, .handoff), (.answer, .foregroundRecovery): return false
            default: continue
            }
        }
        return false
    }

    /// `{"status":"ok","for":…,"outcome":…,"live_activity":{…}}`.
    static func taskAnswer(_ target: WaitTarget, _ outcome: WaitOutcome, _ snapshot: TaskSnapshot) -> HTTPResponse {
        let body = JSONBody.ok([.waitedFor: target, .outcome: outcome, .liveActivity: snapshot])
        return HTTPResponse(status: 200, headers: Responses.jsonHeaders, body: body)
    }

    /// `GET /v1/tasks/{request_id}/wait`'s query: `for` (required) and `timeout` (seconds, default 30).
    static func parseTask(_ request: HTTPRequest, id: String) -> Result<AgentWait, JSONError> {
        guard let name = request.queryValue("for") else {
            return .failure(
                JSONError(
                    status: 400, code: "invalid",
                    message: "query parameter \"for\" is required (one of \(targetNames))", field: "for"))
        }
        guard let target = WaitTarget(rawValue: name) else {
            return .failure(Responses.invalidParameterError("for", "must be one of \(targetNames)"))
        }
        return seconds(request, "timeout", default: defaultSeconds).map {
            AgentWait(subject: .task(requestID: id, target: target), timeout: .seconds($0), request: request)
        }
    }

    /// `GET /v1/events`' `wait`: nil when absent (an ordinary read), else the wait.
    static func parseEvents(_ request: HTTPRequest, query: EventsQuery) -> Result<AgentWait?, JSONError> {
        guard request.queryValue("wait") != nil else { return .success(nil) }
        return seconds(request, "wait", default: 0).map {
            AgentWait(subject: .events(query), timeout: .seconds($0), request: request)
        }
    }

    private static var targetNames: String { WaitTarget.allCases.map(\.rawValue).joined(separator: ", ") }

    private static func seconds(_ request: HTTPRequest, _ name: String, default: Int) -> Result<Int, JSONError> {
        guard let text = request.queryValue(name) else { return .success(`default`) }
        guard let value = QueryRules.cursor(text), value <= UInt64(longestSeconds) else {
            return .failure(
                Responses.invalidParameterError(name, "must be a whole number of seconds from 0 to \(longestSeconds)"))
        }
        return .success(Int(value))
    }
}
