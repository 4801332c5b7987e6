import FoundationEssentials
import LiveActivity
import NetworkAddress
import WireFormat

/// The board's read side on the USB ECM link (docs/protocol.md §3): what the phone may ask.
/// The access policy runs first, on every path, before any handler. It reads only a published,
/// immutable board and changes nothing: what a phone request asks of the board comes back as an effect.
package struct PhoneRouter: Sendable {
    package let policy: AccessPolicy
    /// `[live_activity] enabled` and `retention_seconds`, fixed for the daemon's life: the hot path
    /// reads them here rather than building the board's facts for every request.
    package let liveActivityEnabled: Bool
    package let retention: Duration

    package init(policy: AccessPolicy, liveActivityEnabled: Bool, retention: Duration) {
        self.policy = policy
        self.liveActivityEnabled = liveActivityEnabled
        self.retention = retention
    }

    /// What a connection's peer, the address it was made to and the interface it arrived on decide, when it opens
    /// (`AccessPolicy.decideConnection`, then `decideArrival`): the 403 it is answered with once its headers are
    /// in, instead of being routed; nil: it may be served. `isBoardAddress` answers nil when the board's addresses
    /// cannot be read (refused then, docs/protocol.md §3.1).
    package func refuseConnection(
        peer: IPAddress, local: IPAddress?, interface: String?, isBoardAddress: (IPAddress) -> Bool?
    ) -> RouteResult? {
        if case let .deny(denial) = policy.decideConnection(peer: peer, isBoardAddress: isBoardAddress) {
            return Self.refused(denial)
        }
        if case let .deny(denial) = policy.decideArrival(peer: peer, local: local, interface: interface) {
            return Self.refused(denial)
        }
        return nil
    }

    /// What the request line and headers alone decide, before the server reads the body: the access policy on
    /// every path, on the pairing path its own peer and cross-site rules and the media type, on an answer path
    /// and on the app-state path the cross-site rule and the media type. So a refused peer's 16 KiB body is never read, and it gets its
    /// 403, not a 413. nil: read the body and `handle` it (which checks the same rules again, for requests that
    /// come whole).
    package func admit(_ request: HTTPRequest, boardAddresses: () -> [IPAddress]?) -> RouteResult? {
        if case let .deny(denial) = policy.decide(request) { return Self.refused(denial) }
        if Self.answerTarget(request.path) != nil { return admitAnswer(request) }
        if request.path == Self.appStatePath { return admitAppState(request) }
        guard request.path == "/api/bluetooth/pairing/start" else { return nil }
        if case let .deny(denial) = policy.decidePairing(request, boardAddresses: boardAddresses()) {
            return Self.refused(denial)
        }
        guard request.method == "POST" else { return nil }  // 405 once the request is whole
        return Self.refusedMediaType(request)
    }

    /// `now` stamps and `instant` (the monotonic clock; nil: judge by `now` alone) measures what is still shown.
    /// `admitted`: `admit` has passed this very request already (the server runs it on every request's headers
    /// before it reads the body), so the access policy, the same on every path, is not asked a second time.
    package func handle(
        _ request: HTTPRequest, board: PublishedBoard, facts: @autoclosure () -> BoardFacts, now: Date,
        instant: Duration? = nil, admitted: Bool = false
    ) -> RouteResult {
        if !admitted, case let .deny(denial) = policy.decide(request) { return Self.refused(denial) }
        let isRead = request.method == "GET" || request.method == "HEAD"
        switch request.path {
        case "/api/live-activity/current", "/api/live-activity/status", "/api/live-activity/events":
            guard isRead else { return RouteResult(response: Responses.methodNotAllowed(request, allowed: ["GET"])) }
            guard liveActivityEnabled else {
                return RouteResult(
                    response: Responses.error(
                        JSONError(
                            status: 503, code: "disabled", message: "live activity is disabled on this board")))
            }
            return RouteResult(response: liveActivity(request, board: board, now: now, instant: instant))
        case "/api/bluetooth/status":
            guard isRead else { return RouteResult(response: Responses.methodNotAllowed(request, allowed: ["GET"])) }
            return RouteResult(
                response: BoardStatusBody.bluetooth(facts: facts(), epoch: board.epoch, request: request))
        case "/status":
            guard isRead else { return RouteResult(response: Responses.methodNotAllowed(request, allowed: ["GET"])) }
            return RouteResult(
                response: BoardStatusBody.status(
                    facts: facts(), store: board.store, epoch: board.epoch, request: request))
        case "/api/bluetooth/pairing/start":
            let facts = facts()
            if case let .deny(denial) = policy.decidePairing(request, boardAddresses: facts.boardAddresses) {
                return Self.refused(denial)
            }
            guard request.method == "POST" else {
                return RouteResult(response: Responses.methodNotAllowed(request, allowed: ["POST"]))
            }
            return pairingStart(request, facts: facts, now: now)
        case Self.appStatePath:
            if let refused = admitAppState(request) { return refused }
            guard request.method == "POST" else {
                return RouteResult(response: Responses.methodNotAllowed(request, allowed: ["POST"]))
            }
            return appState(request, now: now)
        default:
            if let id = Self.answerTarget(request.path) { return answer(request, id: id, board: board, now: now) }
            return RouteResult(response: Responses.notFoundEndpoint(request))
        }
    }

    /// A 403 with the denial's own code; the shell logs the denial (rate-limited).
    static func refused(_ denial: AccessPolicy.Denial) -> RouteResult {
        RouteResult(
            response: Responses.error(JSONError(status: 403, code: denial.code, message: denial.description)),
            denial: denial)
    }

    private func liveActivity(
        _ request: HTTPRequest, board: PublishedBoard, now: Date, instant: Duration?
    )
        -> HTTPResponse
    {
        switch request.path {
        case "/api/live-activity/current":
            let phone = request.queryValue("phone_id") ?? ""
            guard IdentifierRule.isValid(phone, allowEmpty: true) else {
                return Responses.invalidParameter("phone_id", IdentifierRule.expectation())
            }
            let (body, standing) = board.currentBody(
                forPhone: phone, now: now, instant: instant, retention: retention)
            return board.json(200, body, request: request, reusable: true, standing: standing)
        case "/api/live-activity/status":
            guard let id = request.queryValue("request_id") else { return Responses.missingParameter("request_id") }
            guard IdentifierRule.isValid(id) else {
                return Responses.invalidParameter("request_id", IdentifierRule.expectation())
            }
            guard let snapshot = board.store.task(id: id) else {
                // 200, as `current` says it and as an Aiden-profile board does: a phone tells "no such task"
                // from "no such path" (a 404, a board without it), docs/http-api.md.
                return board.json(200, JSONBody.notFound, request: request)
            }
            return board.json(200, board.liveActivityBody(snapshot), request: request)
        default:  // events
            switch EventsQuery.parse(request) {
            case let .failure(error):
                return Responses.error(error)
            case let .success(query):
                return board.json(200, query.body(store: board.store, epoch: board.epoch), request: request)
            }
        }
    }

    static let appStatePath = "/api/phone/app-state"

    /// What the headers alone decide on the app-state path, as on an answer's: the cross-site rule (a web page may
    /// not report the phone's state or clock), then (for a POST) the JSON media type, which no form can send.
    func admitAppState(_ request: HTTPRequest) -> RouteResult? {
        if case let .deny(denial) = policy.decideSameSite(request, refusing: .appState) {
            return Self.refused(denial)
        }
        guard request.method == "POST" else { return nil }  // 405 once the request is whole
        return Self.refusedMediaType(request, what: "an app-state report")
    }

    private func appState(_ request: HTTPRequest, now: Date) -> RouteResult {
        do {
            let reported = try PhoneAppState.decode(request.body, now: now)
            let body = JSONBody.ok([.appState: reported])
            return RouteResult(
                response: HTTPResponse(
                    status: 200, headers: Responses.jsonHeaders + [("ETag", ETag.digest(body))], body: body),
                effect: .recordPhoneAppState(reported))
        } catch {
            return RouteResult(response: Responses.error(error))
        }
    }
}
