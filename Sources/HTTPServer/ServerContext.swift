import BoardAPI
import Dispatch
import NetworkAddress
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// What the C callbacks of one daemon need, passed to them as the context pointer.
final class ServerContext: Sendable {
    let handler: HTTPServer.ReplyHandler
    let limits: HTTPServerLimits
    let isUnixSocket: Bool
    let admission: HTTPServerAdmission
    /// Every open connection and how long it has waited for a request (the request deadline).
    let connections = Mutex(ConnectionTable())
    /// The answers a handler gave later (`HTTPReply.later`) still owed, by connection; `stopping` once the
    /// daemon stops, when each is answered at once instead.
    let deferred = Mutex<(owed: [UInt: DeferredResponse], stopping: Bool)>(([:], false))
    /// libmicrohttpd's responses for the answers given again and again (`HTTPResponse.reusable`), built once each.
    let prepared = Mutex(PreparedResponses())
    private let origin = ContinuousClock.now
    /// Fires at the next connection's deadline or the next held answer's limit (`waitBegan`, `deferralBegan`):
    /// once more after the last connection closes, then never while the server is idle.
    private let sweep = DeadlineTimer(queue: DispatchQueue(label: "aiden.http.deadline"))

    init(
        handler: @escaping HTTPServer.ReplyHandler, limits: HTTPServerLimits, isUnixSocket: Bool,
        admission: HTTPServerAdmission
    ) {
        self.handler = handler
        self.limits = limits
        self.isUnixSocket = isUnixSocket
        self.admission = admission
        sweep.setHandler { [weak self] in self?.sweepOverdue() }
    }

    /// The sweep fired: it is disarmed first, so any wait that begins from here on arms it again, and each pass
    /// below re-arms it for the next deadline it still holds (a wait that began before is in its table by then).
    private func sweepOverdue() {
        sweep.fired()
        cutOverdueConnections()
        answerOverdueDeferrals()
    }

    /// A connection began to wait for a request at `now` (it opened, or its answer ended): the sweep is armed
    /// for its deadline (a new connection's header deadline, when shorter) unless armed for an earlier one, whose
    /// firing arms the next. Call it under the table's lock, so a sweep that found nothing waiting cannot leave
    /// the timer disarmed after a wait began.
    func waitBegan(at now: Duration, opening: Bool = false) {
        let deadline = opening ? min(limits.requestDeadline, limits.headerDeadline) : limits.requestDeadline
        sweep.arm(at: now + deadline, now: now)
    }

    /// An answer was deferred at `since`: the sweep is armed for its limit unless armed for an earlier instant.
    func deferralBegan(at since: Duration) {
        sweep.arm(at: since + limits.longestDeferral, now: since)
    }

    func stopSweep() { sweep.cancel() }

    /// Monotonic time since the server started (the table's clock).
    func now() -> Duration { ContinuousClock.now - origin }

    /// Shuts down the connections that have waited longer than the request deadline. Under the table's lock, so a
    /// descriptor is shut down only while its connection is still open: libmicrohttpd reports a connection closed
    /// (and the table forgets it) before it closes the descriptor, which a new connection may then reuse.
    func cutOverdueConnections() {
        let now = now()
        connections.withLock { table in
            for descriptor in table.overdue(
                at: now, deadline: limits.requestDeadline, headerDeadline: limits.headerDeadline)
            {
                shutdown(descriptor, Int32(SHUT_RDWR))
            }
            // Answers since have moved the waits on: the next deadline, or none until a wait begins.
            sweep.arm(at: table.nextDeadline(limits.requestDeadline, headerDeadline: limits.headerDeadline), now: now)
        }
    }

    /// Answers every deferred request that has waited longer than `limits.longestDeferral` with a 503: whatever the
    /// handler does, no connection stays suspended for longer.
    func answerOverdueDeferrals() {
        let now = now()
        let (late, next) = deferred.withLock { state in
            let late = state.owed.values.filter { now - $0.since > limits.longestDeferral }
            let next = state.owed.values.map(\.since).filter { now - $0 <= limits.longestDeferral }.min()
            return (late, next)
        }
        sweep.arm(at: next.map { $0 + limits.longestDeferral }, now: now)
        for response in late {
            response.send(
                HTTPResponses.unavailable("no answer within \(limits.longestDeferral.components.seconds) s"))
        }
    }

    /// The daemon stops: every deferred request is answered now (libmicrohttpd must resume every suspended
    /// connection before it stops), and any later one at once. Returns them, to wait for their answers to go out.
    func answerAllDeferrals() -> [DeferredResponse] {
        let owed = deferred.withLock { state in
            state.stopping = true
            defer { state.owed = [:] }  // each holds the context
            return Array(state.owed.values)
        }
        for response in owed { response.send(HTTPResponses.unavailable("the server is stopping")) }
        return owed
    }

    /// A TCP connection opened (`requestIn`: with its request's line and headers in already): it enters the table in
    /// its class (served, or refused and to be answered 403) and gets its room there, evicting the connection that
    /// waited longest when its class is full (or shut down itself when none is waiting). Shut down under the lock,
    /// like `cutOverdueConnections`.
    func admit(_ id: UInt, descriptor: Int32, peer: IPAddress, refused: Bool, requestIn: Bool) {
        let now = now()
        connections.withLock { table in
            waitBegan(at: now, opening: true)
            table.open(
                id, descriptor: descriptor, peer: .address(peer.unmapped), refused: refused, requestIn: requestIn,
                at: now)
            for cut in table.makeRoom(for: id, within: limits.budget) { shutdown(cut, Int32(SHUT_RDWR)) }
        }
    }

    /// Shuts a connection down now (refused when it opened): libmicrohttpd then reads its end and closes it.
    func refuse(_ id: UInt) {
        connections.withLock { table in
            if let descriptor = table.refuse(id) { shutdown(descriptor, Int32(SHUT_RDWR)) }
        }
    }
}

/// The state of one request between MHD's calls to the access handler (headers, body chunks, end).
final class RequestState {
    /// The request as its headers made it (method, path, query, headers, peer), built on the first call.
    var head: HTTPRequest?
    var body: [UInt8] = []
    var bodyTooLarge = false
    var responded = false
    /// The answer the handler gives later (`HTTPReply.later`), while it is owed.
    var deferred: DeferredResponse?
}

/// An answer a handler gives later, from any thread, once (`HTTPReply.later`): the connection is suspended
/// meanwhile, so a request that waits (an agent's long-poll) holds its connection's slot but never the daemon's
/// thread. `send` resumes the connection; the access handler, called again, queues the answer (`take`).
///
/// libmicrohttpd may only suspend from its own thread and resume a connection it suspended: one lock orders the
/// handler's `suspendUnlessAnswered` and any thread's `send`, so an answer that comes before the suspension is
/// queued at once instead, and only the first answer counts.
final class DeferredResponse: Sendable {
    private enum Stage {
        /// The handler has it; the connection is not suspended yet.
        case open
        /// Answered before the suspension: queued at once.
        case answeredEarly(HTTPResponse)
        case suspended
        /// Answered and resumed: queued when the access handler is called again.
        case answered(HTTPResponse)
        case done
    }

    /// The connection's address (a pointer is not Sendable), valid while the answer is owed: libmicrohttpd does
    /// not close a suspended connection.
    private let connection: UInt
    private let id: UInt
    /// When the handler deferred it, on the context's clock (`answerOverdueDeferrals`).
    let since: Duration
    private let stage = Mutex(Stage.open)
    /// The request is over (its answer sent, or the connection gone): libmicrohttpd said so.
    private let finished = Atomic<Bool>(false)
    private let context: ServerContext

    init(connection: OpaquePointer, context: ServerContext) {
        self.connection = UInt(bitPattern: Int(bitPattern: connection))
        id = connectionID(connection)
        since = context.now()
        self.context = context
    }

    /// Answers the request (the first call only; later ones, or one after the daemon stopped, do nothing).
    func send(_ response: HTTPResponse) {
        stage.withLock { stage in
            switch stage {
            case .open:
                stage = .answeredEarly(response)
            case .suspended:
                stage = .answered(response)
                if let connection = OpaquePointer(bitPattern: connection) { MicroHTTPD.resume(connection) }
            case .answeredEarly, .answered, .done:
                break
            }
        }
    }

    /// On the daemon's thread, when the handler has returned: the answer if it came already (or the daemon is
    /// stopping: a 503), else nil, the connection suspended until `send`.
    func suspendUnlessAnswered() -> HTTPResponse? {
        stage.withLock { stage in
            if case let .answeredEarly(response) = stage {
                stage = .done
                return response
            }
            let stopping = context.deferred.withLock { state in
                if !state.stopping {
                    state.owed[id] = self
                    context.deferralBegan(at: since)
                }
                return state.stopping
            }
            guard !stopping else {
                stage = .done
                return HTTPResponses.unavailable("the server is stopping")
            }
            stage = .suspended
            if let connection = OpaquePointer(bitPattern: connection) { MicroHTTPD.suspend(connection) }
            return nil
        }
    }

    /// libmicrohttpd is done with the request (`requestCompleted`): it is owed no more, whether or not its answer
    /// went out (a client that hung up during a long-poll is closed without the handler being called again, so
    /// `take` never runs). Forgotten by identity: the next request on a keep-alive connection has the same id.
    func complete() {
        finished.store(true, ordering: .releasing)
        context.deferred.withLock { state in
            if state.owed[id] === self { state.owed[id] = nil }
        }
    }

    var isComplete: Bool { finished.load(ordering: .acquiring) }

    /// On the daemon's thread, after a resume: the answer to queue, once.
    func take() -> HTTPResponse? {
        let response = stage.withLock { stage -> HTTPResponse? in
            guard case let .answered(response) = stage else { return nil }
            stage = .done
            return response
        }
        if response != nil { _ = context.deferred.withLock { $0.owed.removeValue(forKey: id) } }
        return response
    }
}
