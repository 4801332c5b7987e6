import FoundationEssentials
import LiveActivity
import WireFormat

/// `POST /api/live-activity/tasks/{request_id}/answer`: the person answers a task from the phone
/// (`{"answer":"stop"|"done"|"refuse"|"dismiss","answer_id":"…","phone_id":"…"}`, `TaskStore.answer` has the
/// rules). Held to the access policy like every phone path, and to the cross-site rule and the JSON media type
/// like the pairing window (403 `cross_site`, 415), both decided before the body is read (`admit`).
///
/// The router reads only the published board: it tries the answer on a copy of the published store, answers a
/// refusal itself (so a bad answer never waits for the writer), and otherwise returns the answer it expects with
/// the effect `recordAnswer`, which the shell performs on its serial executor, durably, and answers with what
/// came of it there (`answerResponse`).
extension PhoneRouter {
    static let answerPathPrefix = "/api/live-activity/tasks/"
    static let answerPathSuffix = "/answer"

    /// The request id an answer path names (as sent, not yet checked), nil for any other path.
    package static func answerTarget(_ path: String) -> Substring? {
        guard path.hasPrefix(answerPathPrefix), path.hasSuffix(answerPathSuffix),
            path.utf8.count > answerPathPrefix.utf8.count + answerPathSuffix.utf8.count
        else { return nil }
        let id = path.dropFirst(answerPathPrefix.count).dropLast(answerPathSuffix.count)
        return id.contains("/") ? nil : id
    }

    /// What the headers alone decide on an answer path: the cross-site rule, then (for a POST) the media type.
    func admitAnswer(_ request: HTTPRequest) -> RouteResult? {
        if case let .deny(denial) = policy.decideSameSite(request, refusing: .answer) { return Self.refused(denial) }
        guard request.method == "POST" else { return nil }  // 405 once the request is whole
        return Self.refusedMediaType(request, what: "an answer")
    }

    func answer(_ request: HTTPRequest, id: Substring, board: PublishedBoard, now: Date) -> RouteResult {
        if let refused = admitAnswer(request) { return refused }
        guard request.method == "POST" else {
            return RouteResult(response: Responses.methodNotAllowed(request, allowed: ["POST"]))
        }
        guard liveActivityEnabled else {
            return RouteResult(
                response: Responses.error(
                    JSONError(status: 503, code: "disabled", message: "live activity is disabled on this board")))
        }
        let requestID = String(id)
        guard IdentifierRule.isValid(requestID) else {
            return RouteResult(
                response: Responses.error(
                    JSONError(
                        status: 400, code: "invalid",
                        message: "the request id in the path \(IdentifierRule.expectation())", field: "request_id")))
        }
        let answer: AnswerRequest
        do {
            answer = try AnswerRequest.decode(from: request.body)
        } catch {
            return RouteResult(
                response: Responses.error(
                    JSONError(status: 400, code: "invalid", message: error.description, field: error.field)))
        }
        var trial = board.store
        do {
            let outcome = try trial.answer(id: requestID, answer, now: now)
            return RouteResult(
                response: Self.answerResponse(outcome), effect: .recordAnswer(requestID: requestID, answer))
        } catch {
            return RouteResult(response: Self.answerRefusal(error))
        }
    }

    /// The 200 of an answer: `{"status":"ok","ok":true,"answer":{…},"task":{…snapshot…}}`.
    package static func answerResponse(_ outcome: AnswerChange) -> HTTPResponse {
        let body = JSONBody.ok([.ok: true, .answer: outcome.answer, .task: outcome.change.snapshot])
        return HTTPResponse(status: 200, headers: Responses.jsonHeaders, body: body)
    }

    /// The store's refusal of an answer: 404 `not_found` (unknown, or another phone's), 409 with the refusal's
    /// code, 400 `invalid`.
    package static func answerRefusal(_ error: TaskStoreError) -> HTTPResponse {
        Responses.error(error.jsonError)
    }
}
