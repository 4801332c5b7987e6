import BoardAPI
import HTTPClient
import HTTPClientCore
import HTTPServer
import PhoneCore
import Platform
import Synchronization

/// The card as one line for status bars (`BarStatus`), served by the running client on a Unix socket in the
/// person's runtime directory (docs/desktop.md): `GET /v1/status?format=text|json&wait=S` answers the line now,
/// or, with `If-None-Match` naming the line the asker has, holds the request (no thread, no timer but the one
/// of that request) until the line changes or S seconds (at most 60) pass (`304`). `aiden-phone status --follow`
/// holds one such request at a time; nothing here wakes while no one asks. `GET /v1/task` names the task the line is
/// about, at the revision its card shows (`ShownTask`): what `aiden-phone stop|done|refuse|dismiss` without an ID
/// answers, so a desktop action answers what the person saw. `POST /v1/answered` is that command saying the board
/// recorded its stop, done or refuse: the client fetches and follows it (`PhoneSession.Input.answerRecordedElsewhere`), so what
/// the answer causes reaches the card as fast as from the client's own buttons.
///
/// A surface beside the notifications: it takes the same cards, after the same steps, and never blocks the
/// client (answers go to waiting connections from the executor; the socket's server loop writes them on its own
/// thread).
package final class StatusSocket: CardSurface {
    private struct Waiter: Sendable {
        var json: Bool
        var respond: @Sendable (HTTPResponse) -> Void
        var timer: (any ScheduledWork)?
    }

    private struct State: Sendable {
        var status = BarStatus(cards: [], current: nil)
        var version: UInt64 = 1
        var waiters: [UInt64: Waiter] = [:]
        var nextWaiter: UInt64 = 0
        var server: HTTPServer?
        var path: String?
        var answered: (@Sendable () -> Void)?
    }

    /// The longest a request is held (the server answers any request it still owes at 75 s).
    package static let longestWait = 60
    /// Requests held at once; one more answers the oldest (`304`: it asks again).
    package static let mostWaiting = 16

    private let state = Mutex(State())
    private let runtime: any Runtime
    private let logger: Logger
    /// Random per start, in every tag: a restarted client never takes an old tag for its own.
    private let instance: String

    package init(runtime: any Runtime, logger: Logger) {
        self.runtime = runtime
        self.logger = logger
        var random = SystemRandomNumberGenerator()
        instance = String(random.next() as UInt64, radix: 16)
    }

    /// What to do when `aiden-phone stop|done|refuse` says the board recorded its answer.
    package func onAnswered(_ answered: @escaping @Sendable () -> Void) {
        state.withLock { $0.answered = answered }
    }

    /// Serves on `path` (mode 0600, its directory made 0700 when missing), unless another running client already
    /// answers there (it keeps it).
    package func start(path: String) {
        let probe = HTTPClient(maxResponseBytes: 4096)
        if case .success = Result(catching: { () throws(HTTPClientError) in
            try probe.perform(Self.request(path: path, json: false, wait: 0, tag: nil, milliseconds: 500))
        }) {
            logger.notice("another aiden-phone serves the bar status at \(path); this one does not")
            return
        }
        do {
            try POSIXFileSystem().createDirectory(at: PathSyntax.parentDirectory(of: path), permissions: 0o700)
            let socket = try ListeningSocket.unix(path: path, mode: 0o600)
            let server = try HTTPServer(
                sockets: [socket],
                limits: HTTPServerLimits(
                    connectionLimit: 24, perPeerConnectionLimit: 24, idleTimeoutSeconds: 90,
                    requestDeadline: .seconds(5), headerDeadline: .seconds(2), maxHeaderBytes: 8 * 1024),
                replying: { [weak self] request in
                    self?.handle(request) ?? .now(HTTPResponse(status: 503))
                })
            state.withLock {
                $0.server = server
                $0.path = path
            }
            logger.info("bar status on \(path)")
        } catch {
            logger.warning("no bar status for aiden-phone status: cannot serve on \(path): \(error)")
        }
    }

    /// Stops serving and removes the socket (at exit and in tests); held requests are answered 503 by the server.
    package func stop() {
        let (server, path) = state.withLock { state in
            defer {
                state.server = nil
                state.path = nil
            }
            return (state.server, state.path)
        }
        server?.stop()
        if let path { try? POSIXFileSystem().removeFile(at: path) }
    }

    package func show(_ cards: [Card], current: Card?, alerts: [Alert]) {
        let status = BarStatus(cards: cards, current: current)
        let due = state.withLock { state -> (String, [Waiter])? in
            guard status != state.status else { return nil }
            state.status = status
            state.version += 1
            defer { state.waiters = [:] }
            return (tag(state.version), Array(state.waiters.values))
        }
        guard let (tag, waiters) = due else { return }
        for waiter in waiters {
            waiter.timer?.cancel()
            waiter.respond(Self.answer(status, tag: tag, json: waiter.json))
        }
    }

    /// One request on the socket: the line now, a held wait, the task the line is about, or what is wrong with the
    /// request.
    package func handle(_ request: HTTPRequest) -> HTTPReply {
        guard request.path == "/v1/status" || request.path == Self.taskPath || request.path == Self.answeredPath else {
            return .now(
                Self.plain(
                    404, "no such path: ask GET /v1/status or GET \(Self.taskPath), or POST \(Self.answeredPath)"))
        }
        if request.path == Self.answeredPath {
            guard request.method == "POST" else {
                var response = Self.plain(405, "\(request.method) is not allowed on \(request.path)")
                response.headers.append((name: "Allow", value: "POST"))
                return .now(response)
            }
            state.withLock { $0.answered }?()
            return .now(HTTPResponse(status: 204))
        }
        guard request.method == "GET" || request.method == "HEAD" else {
            var response = Self.plain(405, "\(request.method) is not allowed on \(request.path)")
            response.headers.append((name: "Allow", value: "GET, HEAD"))
            return .now(response)
        }
        if request.path == Self.taskPath { return .now(Self.answer(state.withLock { $0.status.task })) }
        let format = request.query.first { $0.name == "format" }?.value ?? "text"
        guard format == "text" || format == "json" else {
            return .now(Self.plain(400, "format '\(BoardText.printable(format, limit: 40))' must be text or json"))
        }
        var wait = 0
        if let text = request.query.first(where: { $0.name == "wait" })?.value {
            guard let seconds = Int(text), (0...Self.longestWait).contains(seconds),
                text.utf8.allSatisfy({ (0x30...0x39).contains($0) })
            else {
                return .now(
                    Self.plain(
                        400, "wait '\(BoardText.printable(text, limit: 40))' must be 0 to \(Self.longestWait) seconds"))
            }
            wait = seconds
        }
        let json = format == "json"
        let asked = request.headers["if-none-match"]
        let now = state.withLock { state -> (BarStatus, String) in (state.status, tag(state.version)) }
        guard asked == now.1 else { return .now(Self.answer(now.0, tag: now.1, json: json)) }
        guard wait > 0 else { return .now(Self.notModified(now.1)) }
        let seconds = wait
        return .later { [self] respond in hold(json: json, tag: now.1, seconds: seconds, respond: respond) }
    }

    /// Keeps the request until the line changes or its time is up; the oldest gives way past `mostWaiting`.
    private func hold(json: Bool, tag asked: String, seconds: Int, respond: @escaping @Sendable (HTTPResponse) -> Void)
    {
        let deadline = runtime.monotonicNow() + .seconds(seconds)
        enum Outcome {
            case held(UInt64, evicted: Waiter?, tag: String)
            case changed(BarStatus, String)
        }
        let outcome = state.withLock { state -> Outcome in
            let current = tag(state.version)
            guard current == asked else { return .changed(state.status, current) }
            let id = state.nextWaiter
            state.nextWaiter += 1
            state.waiters[id] = Waiter(json: json, respond: respond)
            var evicted: Waiter?
            if state.waiters.count > Self.mostWaiting, let oldest = state.waiters.keys.min() {
                evicted = state.waiters.removeValue(forKey: oldest)
            }
            return .held(id, evicted: evicted, tag: current)
        }
        switch outcome {
        case let .changed(status, tag):
            respond(Self.answer(status, tag: tag, json: json))
        case let .held(id, evicted, tag):
            if let evicted {
                evicted.timer?.cancel()
                evicted.respond(Self.notModified(tag))
            }
            let timer = runtime.schedule(at: deadline) { [weak self] in self?.expire(id, tag: tag) }
            let stillHeld = state.withLock { state -> Bool in
                guard state.waiters[id] != nil else { return false }
                state.waiters[id]?.timer = timer
                return true
            }
            if !stillHeld { timer.cancel() }
        }
    }

    private func expire(_ id: UInt64, tag: String) {
        guard let waiter = state.withLock({ $0.waiters.removeValue(forKey: id) }) else { return }
        waiter.respond(Self.notModified(tag))
    }

    private func tag(_ version: UInt64) -> String { "\"\(instance)-\(version)\"" }

    static func answer(_ status: BarStatus, tag: String, json: Bool) -> HTTPResponse {
        HTTPResponse(
            status: 200,
            headers: [
                (name: "Content-Type", value: json ? "application/json" : "text/plain; charset=utf-8"),
                (name: "ETag", value: tag), (name: "Cache-Control", value: "no-store"),
            ],
            body: Array(((json ? status.waybarJSON : status.text) + "\n").utf8))
    }

    /// `GET /v1/task`: the task the line is about, at the revision its card shows (`ShownTask`, JSON), or `204` when
    /// the line is about none. What `aiden-phone stop|done|refuse|dismiss` without an ID answers.
    static func answer(_ task: ShownTask?) -> HTTPResponse {
        guard let task else { return HTTPResponse(status: 204, headers: [(name: "Cache-Control", value: "no-store")]) }
        return HTTPResponse(
            status: 200,
            headers: [(name: "Content-Type", value: "application/json"), (name: "Cache-Control", value: "no-store")],
            body: Array((task.json + "\n").utf8))
    }

    static func notModified(_ tag: String) -> HTTPResponse {
        HTTPResponse(status: 304, headers: [(name: "ETag", value: tag)])
    }

    static func plain(_ status: Int, _ words: String) -> HTTPResponse {
        HTTPResponse(
            status: status, headers: [(name: "Content-Type", value: "text/plain; charset=utf-8")],
            body: Array((words + "\n").utf8))
    }

    /// Where the running client says which task its line is about (`ShownTask`).
    package static let taskPath = "/v1/task"
    /// Where `aiden-phone stop|done|refuse` says the board recorded its answer.
    package static let answeredPath = "/v1/answered"

    /// The request `aiden-phone stop|done|refuse` makes once the board recorded its answer.
    package static func answeredRequest(path: String, milliseconds: Int) -> HTTPClientRequest {
        HTTPClientRequest(
            method: "POST", url: "http://localhost" + answeredPath, headers: [], unixSocketPath: path,
            timeout: .init(connectMilliseconds: 500, totalMilliseconds: milliseconds))
    }

    /// The request `aiden-phone stop|done|refuse|dismiss` without an ID makes: the task the line is about.
    package static func taskRequest(path: String, milliseconds: Int) -> HTTPClientRequest {
        HTTPClientRequest(
            method: "GET", url: "http://localhost" + taskPath, headers: [], unixSocketPath: path,
            timeout: .init(connectMilliseconds: 1_000, totalMilliseconds: milliseconds))
    }

    /// The request `aiden-phone status` makes: the line in its format, held `wait` seconds when `tag` is the one it
    /// has.
    package static func request(
        path: String, json: Bool, wait: Int, tag: String?, milliseconds: Int
    )
        -> HTTPClientRequest
    {
        HTTPClientRequest(
            method: "GET", url: "http://localhost/v1/status?format=\(json ? "json" : "text")&wait=\(wait)",
            headers: tag.map { [("If-None-Match", $0)] } ?? [], unixSocketPath: path,
            timeout: .init(connectMilliseconds: 1_000, totalMilliseconds: milliseconds))
    }
}
