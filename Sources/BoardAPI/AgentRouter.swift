import FoundationEssentials
import LiveActivity
import WireFormat

/// The write side, served only on the agent's Unix socket (docs/protocol.md §6): start, update, heartbeat, end,
/// list and show tasks, the transition ring (`aidenctl events`), the long-polls that wait for the person
/// (`AgentWait`), and the daemon's health. Agents never write over the ECM link. Every write takes an
/// `Idempotency-Key`.
package struct AgentRouter: Sendable {
    package init() {}

    /// Whether `request` may be a long-poll (`AgentWait`), which the shell must not answer on the calling thread:
    /// `GET /v1/tasks/{request_id}/wait`, and `GET /v1/events` with `wait`.
    package static func mayWait(_ request: HTTPRequest) -> Bool {
        guard request.method == "GET" || request.method == "HEAD" else { return false }
        if request.path == "/v1/events" { return request.queryValue("wait") != nil }
        let parts = request.path.split(separator: "/", omittingEmptySubsequences: false)
        return parts.count == 5 && parts[1] == "v1" && parts[2] == "tasks" && parts[4] == "wait"
    }

    package func handle(
        _ request: HTTPRequest, state: inout BoardState, facts: BoardFacts, now: Date,
        using generator: inout some RandomNumberGenerator
    ) -> RouteResult {
        let parts = request.path.split(separator: "/", omittingEmptySubsequences: false).dropFirst()
        guard parts.first == "v1", !request.path.hasSuffix("/") else {
            return RouteResult(response: Responses.notFoundEndpoint(request))
        }
        let route = Array(parts.dropFirst())
        let method = request.method == "HEAD" ? "GET" : request.method
        switch (route.count, route.first) {
        case (1, "status"):
            guard method == "GET" else {
                return RouteResult(response: Responses.methodNotAllowed(request, allowed: ["GET"]))
            }
            return RouteResult(
                response: BoardStatusBody.status(facts: facts, store: state.store, epoch: state.epoch, request: request)
            )
        case (1, "events"):
            guard method == "GET" else {
                return RouteResult(response: Responses.methodNotAllowed(request, allowed: ["GET"]))
            }
            switch EventsQuery.parse(request).flatMap({ query in
                AgentWait.parseEvents(request, query: query).map { (query, $0) }
            }) {
            case let .failure(error):
                return RouteResult(response: Responses.error(error))
            case let .success((_, wait?)):
                return waiting(wait, state: &state)
            case let .success((query, nil)):
                let body = query.body(store: state.store, epoch: state.epoch)
                return RouteResult(response: Responses.json(200, body, etag: state.storeETag, request: request))
            }
        case (1, "tasks"):
            switch method {
            case "GET":
                let body = JSONBody.ok([.tasks: state.store.tasks])
                return RouteResult(response: Responses.json(200, body, etag: state.storeETag, request: request))
            case "POST":
                return start(request, state: &state, facts: facts, now: now, using: &generator)
            default:
                return RouteResult(response: Responses.methodNotAllowed(request, allowed: ["GET", "POST"]))
            }
        case (2, "tasks"):
            let id = String(route[1])
            switch method {
            case "GET":
                guard let snapshot = state.store.task(id: id) else {
                    return RouteResult(response: Responses.error(TaskStoreError.notFound(id: id).jsonError))
                }
                return RouteResult(
                    response: Responses.json(
                        200, state.liveActivityBody(snapshot),
                        etag: state.storeETag, request: request))
            case "PATCH":
                let key = request.header("idempotency-key")
                return write(facts: facts) { () throws(RouteFailure) -> TaskChange in
                    let patch = try RouteFailure.wrap { () throws(TaskValidationError) in
                        try TaskPatch.decode(from: request.body)
                    }
                    return try RouteFailure.wrap { () throws(TaskStoreError) in
                        try state.store.update(id: id, patch: patch, idempotencyKey: key, now: now)
                    }
                } respond: { change in
                    Responses.json(
                        200, state.liveActivityBody(change.snapshot), etag: state.storeETag, request: request)
                }
            default:
                return RouteResult(response: Responses.methodNotAllowed(request, allowed: ["GET", "PATCH"]))
            }
        case (3, "tasks") where route[2] == "end":
            let id = String(route[1])
            guard method == "POST" else {
                return RouteResult(response: Responses.methodNotAllowed(request, allowed: ["POST"]))
            }
            let key = request.header("idempotency-key")
            return write(facts: facts) { () throws(RouteFailure) -> TaskChange in
                let end = try RouteFailure.wrap { () throws(TaskValidationError) in
                    try TaskEnd.decode(from: request.body)
                }
                return try RouteFailure.wrap { () throws(TaskStoreError) in
                    try state.store.end(id: id, end, idempotencyKey: key, now: now)
                }
            } respond: { change in
                Responses.json(200, state.liveActivityBody(change.snapshot), etag: state.storeETag, request: request)
            }
        case (3, "tasks") where route[2] == "wait":
            guard method == "GET" else {
                return RouteResult(response: Responses.methodNotAllowed(request, allowed: ["GET"]))
            }
            switch AgentWait.parseTask(request, id: String(route[1])) {
            case let .failure(error):
                return RouteResult(response: Responses.error(error))
            case let .success(wait):
                return waiting(wait, state: &state)
            }
        case (3, "tasks") where route[2] == "heartbeat":
            // News without a change: the body is ignored, so an agent can send any or none.
            let id = String(route[1])
            guard method == "POST" else {
                return RouteResult(response: Responses.methodNotAllowed(request, allowed: ["POST"]))
            }
            return write(facts: facts) { () throws(RouteFailure) -> TaskChange in
                try RouteFailure.wrap { () throws(TaskStoreError) in try state.store.heartbeat(id: id, now: now) }
            } respond: { change in
                Responses.json(200, state.liveActivityBody(change.snapshot), etag: state.storeETag, request: request)
            }
        default:
            return RouteResult(response: Responses.notFoundEndpoint(request))
        }
    }

    /// A long-poll: answered now when the board decides it already (or its timeout is 0), else handed to the shell
    /// with what to answer should it not wait after all (the timeout's answer, now).
    private func waiting(_ wait: AgentWait, state: inout BoardState) -> RouteResult {
        if let decided = wait.answer(on: &state) { return RouteResult(response: decided) }
        let now = wait.timedOut(on: &state)
        return RouteResult(response: now, wait: wait.timeout > .zero ? wait : nil)
    }

    private func start(
        _ request: HTTPRequest, state: inout BoardState, facts: BoardFacts, now: Date,
        using generator: inout some RandomNumberGenerator
    ) -> RouteResult {
        let key = request.header("idempotency-key")
        return write(facts: facts) { () throws(RouteFailure) -> TaskChange in
            let draft = try RouteFailure.wrap { () throws(TaskValidationError) in
                try TaskDraft.decode(from: request.body)
            }
            return try RouteFailure.wrap { () throws(TaskStoreError) in
                try state.store.start(draft, idempotencyKey: key, now: now, using: &generator)
            }
        } respond: { change in
            var response = Responses.json(
                201, state.liveActivityBody(change.snapshot), etag: state.storeETag,
                request: request)
            response.headers.append(("Location", "/v1/tasks/\(change.snapshot.requestID)"))
            return response
        }
    }

    /// Runs one store write and turns its outcome into an answer; refused while live activity is off.
    private func write(
        facts: BoardFacts, _ body: () throws(RouteFailure) -> TaskChange,
        respond: (TaskChange) -> HTTPResponse
    ) -> RouteResult {
        guard facts.liveActivityEnabled else {
            return RouteResult(
                response: Responses.error(
                    JSONError(
                        status: 503, code: "disabled",
                        message: "live activity is disabled on this board ([live_activity] enabled = false)")))
        }
        do {
            let change = try body()
            return RouteResult(response: respond(change), change: change.changed ? change : nil)
        } catch {
            return RouteResult(response: Responses.error(error.jsonError))
        }
    }
}

/// A refused write, from validation or from the store, on its way to a JSON error.
private enum RouteFailure: Error {
    case validation(TaskValidationError)
    case store(TaskStoreError)

    var jsonError: JSONError {
        switch self {
        case let .validation(error):
            return JSONError(status: 400, code: "invalid", message: error.description, field: error.field)
        case let .store(error):
            return error.jsonError
        }
    }

    static func wrap<T>(_ body: () throws(TaskValidationError) -> T) throws(RouteFailure) -> T {
        do { return try body() } catch { throw .validation(error) }
    }

    static func wrap<T>(_ body: () throws(TaskStoreError) -> T) throws(RouteFailure) -> T {
        do { return try body() } catch { throw .store(error) }
    }
}

extension TaskStoreError {
    /// The HTTP status and JSON error for a refused store operation.
    package var jsonError: JSONError {
        let status =
            switch self {
            case .notFound: 404
            case .conflict, .capacityExceeded, .answerRefused: 409
            case .invalid: 400
            }
        return JSONError(status: status, code: code, message: description, field: field)
    }
}
