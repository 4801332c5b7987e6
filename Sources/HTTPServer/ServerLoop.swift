import BoardAPI
internal import CLinuxEvents
import NetworkAddress
import Platform
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// One listener's server: a thread that waits in `epoll_wait` for its listener, its connections and its wake-up,
/// and does everything else itself. It takes the kernel's whole accept queue each turn (`AcceptTriage`), reads and
/// parses each request (`HTTPRequestParser`), asks the admission and the handler, and writes the answer (a
/// publication's `/current` from bytes built once, `PreparedResponses`) with one `send`. Deadlines need no timer:
/// the wait's timeout is the next one (`ConnectionTable.nextDeadline`, a held answer's limit, a stalled send's), so
/// an idle server sleeps until a client comes.
///
/// An answer a handler gives later (`HTTPReply.later`) comes from any thread into `inbox`, and the wake-up's
/// `eventfd` brings the loop to send it; meanwhile the connection is not read, and holds its slot.
final class ServerLoop: @unchecked Sendable {
    // Everything but `inbox`, `stopRequested` and `thread` is the loop thread's alone.

    /// The most connections one turn accepts before it hands over what it keeps (the kernel's queue is 4,096 deep).
    static let turnLimit = 1_024
    /// Room beyond the budgets, of which the last half is only for connections that bring their request
    /// (`AcceptTriage`): however many silent connections a turn takes, the phone's still finds a place.
    static let evictionHeadroom = 24
    /// How long a closing connection's late bytes are read and dropped, so that its peer reads the answer.
    static let lingerLimit: Duration = .seconds(1)

    private static let listenerKey: UInt64 = 0
    private static let wakeKey: UInt64 = 1

    private let listener: Int32
    private let isUnixSocket: Bool
    private let epoll: Int32
    private let wake: Int32
    private let handler: HTTPServer.ReplyHandler
    private let limits: HTTPServerLimits
    private let admission: HTTPServerAdmission
    private let parserLimits: HTTPRequestParser.Limits
    /// How many connections may be open at once, cut ones included, and how many of those only connections with
    /// their request in may take (`AcceptTriage`).
    private let intakeLimit: Int
    private let reserved: Int

    private var table = ConnectionTable()
    private var connections: [UInt: ServerConnection] = [:]
    /// The same connections by descriptor: the table names the ones to cut by it.
    private var byDescriptor: [Int32: ServerConnection] = [:]
    private var nextID: UInt = 2
    private var prepared = PreparedResponses()
    private var date = HTTPDate(second: 0)
    private let origin = ContinuousClock.now
    /// `now()` when the last wait returned: what this turn's events are stamped with (deadlines are kept to the
    /// millisecond, so one read of the clock a turn serves every request in it).
    private var turnNow: Duration = .zero
    /// Connections with an answer owed, or a send or a linger under way: what the deadlines look at besides the table.
    private var watched: Set<UInt> = []
    /// Accepting failed for want of descriptors: the listener rests until then.
    private var listenerRestsUntil: Duration?
    private var scratch = [UInt8](repeating: 0, count: 16 * 1_024)

    /// Answers given later, by connection and request, until the loop sends them; `open` is false once the loop is
    /// done, when later answers are dropped (and the wake-up, closed, is never written).
    private let inbox = Mutex<(answers: [(id: UInt, serial: UInt64, response: HTTPResponse)], open: Bool)>(([], true))
    private let stopRequested = Atomic<Bool>(false)
    /// The loop is answering what it owes before it closes: a request read now is answered 503 at once.
    private var stopping = false
    private let thread = Mutex<JoinableThread?>(nil)

    private init(
        listener: Int32, isUnixSocket: Bool, epoll: Int32, wake: Int32, handler: @escaping HTTPServer.ReplyHandler,
        limits: HTTPServerLimits, admission: HTTPServerAdmission
    ) {
        self.listener = listener
        self.isUnixSocket = isUnixSocket
        self.epoll = epoll
        self.wake = wake
        self.handler = handler
        self.limits = limits
        self.admission = admission
        parserLimits = HTTPRequestParser.Limits(headerBytes: limits.maxHeaderBytes, bodyBytes: limits.maxBodyBytes)
        intakeLimit =
            isUnixSocket
            ? limits.connectionLimit
            : limits.connectionLimit + limits.refusedConnectionLimit
                + Self.evictionHeadroom
        reserved = Self.evictionHeadroom / 2
    }

    /// Starts serving `socket` (made non-blocking) on a thread of its own; nil when the system gave no thread or
    /// descriptor for it (the socket is then the caller's to close).
    static func start(
        socket: ListeningSocket, handler: @escaping HTTPServer.ReplyHandler, limits: HTTPServerLimits,
        admission: HTTPServerAdmission
    ) -> ServerLoop? {
        let epoll = aiden_epoll_create()
        guard epoll >= 0 else { return nil }
        let wake = aiden_event_descriptor()
        guard wake >= 0 else {
            close(epoll)
            return nil
        }
        _ = fcntl(socket.descriptor, F_SETFL, fcntl(socket.descriptor, F_GETFL) | O_NONBLOCK)
        let isUnix = { if case .unix = socket.kind { true } else { false } }()
        let loop = ServerLoop(
            listener: socket.descriptor, isUnixSocket: isUnix, epoll: epoll, wake: wake, handler: handler,
            limits: limits, admission: admission)
        guard aiden_epoll_set(epoll, aiden_epoll_add, socket.descriptor, aiden_epoll_in, listenerKey) == 0,
            aiden_epoll_set(epoll, aiden_epoll_add, wake, aiden_epoll_in, wakeKey) == 0,
            let started = JoinableThread.start({ loop.run() })
        else {
            close(wake)
            close(epoll)
            return nil
        }
        loop.thread.withLock { $0 = started }
        return loop
    }

    /// Stops the loop and waits for it: every answer still owed is answered 503 and given half a second to go out,
    /// then every connection and the listener are closed. Once only.
    func stop() {
        guard
            let running = thread.withLock({ thread -> JoinableThread? in
                defer { thread = nil }
                return thread
            })
        else { return }
        stopRequested.store(true, ordering: .releasing)
        // Under the inbox's lock: once the loop has closed the wake-up, its number may be another file's.
        inbox.withLock { inbox in if inbox.open { signalWake() } }
        running.join()
    }

    /// From any thread: the answer to request `serial` of connection `id`, sent by the loop if that request still
    /// waits for it.
    private func post(_ response: HTTPResponse, to id: UInt, serial: UInt64) {
        inbox.withLock { inbox in
            guard inbox.open else { return }
            inbox.answers.append((id, serial, response))
            signalWake()
        }
    }

    private func signalWake() {
        var one: UInt64 = 1
        _ = write(wake, &one, MemoryLayout<UInt64>.size)
    }

    // MARK: The loop

    private func run() {
        var events = [UInt32](repeating: 0, count: 64)
        var keys = [UInt64](repeating: 0, count: 64)
        while !stopRequested.load(ordering: .acquiring) {
            let (timeout, due) = nextWait()
            let count = events.withUnsafeMutableBufferPointer { events in
                keys.withUnsafeMutableBufferPointer { keys in
                    aiden_epoll_wait(epoll, events.baseAddress, keys.baseAddress, 64, timeout)
                }
            }
            turnNow = now()
            for index in 0..<Int(max(count, 0)) {
                switch keys[index] {
                case Self.listenerKey: acceptQueue()
                case Self.wakeKey: takeInbox()
                default: service(UInt(keys[index]), events: events[index])
                }
            }
            if let due, turnNow >= due { sweep() }
        }
        finish()
    }

    /// Monotonic time since the loop started (the table's clock).
    private func now() -> Duration { ContinuousClock.now - origin }

    /// The current second's `Date`, from the wall clock (read once a request: `time` is a vDSO call).
    private func currentDate() -> HTTPDate {
        let second = Int(time(nil))
        if second != date.second { date = HTTPDate(second: second) }
        return date
    }

    /// The wait's timeout in milliseconds (-1: none) and the instant it is for: the next connection deadline, held
    /// answer's limit, stalled send's or linger's limit, or the listener's rest.
    private func nextWait() -> (Int32, Duration?) {
        var due = table.nextDeadline(limits.requestDeadline, headerDeadline: limits.headerDeadline)
        func consider(_ instant: Duration?) {
            guard let instant else { return }
            due = min(due ?? instant, instant)
        }
        consider(listenerRestsUntil)
        for id in watched {
            guard let connection = connections[id] else { continue }
            consider(connection.owed.map { $0.since + limits.longestDeferral })
            consider(connection.lingerUntil)
            if !connection.output.isEmpty { consider(connection.lastProgress + .seconds(limits.idleTimeoutSeconds)) }
        }
        guard let due else { return (-1, nil) }
        let wait = max(due - now(), .zero)
        let (seconds, attoseconds) = wait.components
        // A millisecond late, since a deadline is passed only once its instant is.
        let milliseconds = seconds * 1_000 + attoseconds / 1_000_000_000_000_000 + 1
        return (Int32(clamping: milliseconds), due)
    }

    /// Acts on every deadline that has passed.
    private func sweep() {
        let now = now()
        for descriptor in table.overdue(
            at: now, deadline: limits.requestDeadline, headerDeadline: limits.headerDeadline)
        {
            cut(descriptor)
        }
        if let rest = listenerRestsUntil, now >= rest {
            listenerRestsUntil = nil
            _ = aiden_epoll_set(epoll, aiden_epoll_add, listener, aiden_epoll_in, Self.listenerKey)
        }
        for id in watched {
            guard let connection = connections[id] else {
                watched.remove(id)
                continue
            }
            if let linger = connection.lingerUntil, now >= linger {
                drop(connection)
            } else if !connection.output.isEmpty,
                now - connection.lastProgress > .seconds(limits.idleTimeoutSeconds)
            {
                drop(connection)
            } else if let owed = connection.owed, now - owed.since > limits.longestDeferral {
                answerOwed(
                    connection,
                    HTTPResponses.unavailable("no answer within \(limits.longestDeferral.components.seconds) s"))
            }
        }
    }

    /// The loop ends: every owed answer is a 503, given half a second to go out; then everything is closed.
    private func finish() {
        stopping = true
        // Nothing new is taken: only the answers still going out are waited for.
        _ = aiden_epoll_set(epoll, aiden_epoll_remove, listener, 0, Self.listenerKey)
        _ = aiden_epoll_set(epoll, aiden_epoll_remove, wake, 0, Self.wakeKey)
        for connection in Array(connections.values) where connection.owed != nil {
            answerOwed(connection, HTTPResponses.unavailable("the server is stopping"))
        }
        for connection in Array(connections.values) {
            guard connection.isOpen else { continue }
            if connection.output.isEmpty {
                drop(connection)
            } else {
                connection.interest = aiden_epoll_out
                _ = aiden_epoll_set(
                    epoll, aiden_epoll_modify, connection.descriptor, aiden_epoll_out, UInt64(connection.id))
            }
        }
        let until = now() + .milliseconds(500)
        var events = [UInt32](repeating: 0, count: 64)
        var keys = [UInt64](repeating: 0, count: 64)
        while connections.values.contains(where: { !$0.output.isEmpty }), now() < until {
            let count = events.withUnsafeMutableBufferPointer { events in
                keys.withUnsafeMutableBufferPointer { keys in
                    aiden_epoll_wait(epoll, events.baseAddress, keys.baseAddress, 64, 10)
                }
            }
            for index in 0..<Int(max(count, 0)) where keys[index] > Self.wakeKey {
                if let connection = connections[UInt(keys[index])], events[index] & aiden_epoll_out != 0 {
                    flush(connection)
                }
            }
        }
        for connection in Array(connections.values) { drop(connection) }
        inbox.withLock { inbox in
            inbox.open = false
            inbox.answers = []
        }
        close(listener)
        close(wake)
        close(epoll)
    }

    // MARK: Accepting

    private func acceptQueue() {
        if isUnixSocket {
            acceptUnix()
        } else if !acceptTCP() {
            // Out of descriptors (or another failure): the queue waits, without a tight loop.
            _ = aiden_epoll_set(epoll, aiden_epoll_remove, listener, 0, Self.listenerKey)
            listenerRestsUntil = now() + .milliseconds(10)
        }
    }

    /// One turn: accepts until the queue is empty or `turnLimit` are taken, triaging them as they come, and opens what
    /// the triage keeps. What is left in the queue waits for the next turn, after the connections that are ready
    /// now are served: a flood that refills the queue as fast as it is taken cannot keep the loop from the phone's
    /// request. False when accept failed otherwise than on an empty queue.
    private func acceptTCP() -> Bool {
        var triage = AcceptTriage(
            perPeer: limits.perPeerConnectionLimit, room: intakeLimit - table.count, reserved: reserved)
        var peers: [Int32: SocketEndpoint] = [:]
        var accepted = 0
        var error: Int32 = 0
        while accepted < Self.turnLimit {
            var storage = sockaddr_storage()
            var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
            let descriptor = withUnsafeMutablePointer(to: &storage) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { aiden_accept(listener, $0, &length) }
            }
            guard descriptor >= 0 else {
                error = errno
                if error == EINTR || error == ECONNABORTED { continue }
                break
            }
            accepted += 1
            let peer = withUnsafePointer(to: storage) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { SockaddrStorage.endpoint(from: $0) }
            }
            guard let peer else {
                close(descriptor)
                continue
            }
            peers[descriptor] = peer
            let arrival = AcceptTriage.Arrival(
                peer: peer.address.unmapped, requestIn: ConnectionFacts.requestIn(descriptor))
            for dropped in triage.take(descriptor, arrival, requestIn: ConnectionFacts.requestIn) {
                peers[dropped] = nil
                close(dropped)
            }
        }
        for (descriptor, _) in triage.held {
            guard let peer = peers[descriptor] else { continue }
            openTCP(descriptor, peer: peer.address)
        }
        return accepted == Self.turnLimit || error == EAGAIN || error == EWOULDBLOCK
    }

    /// A TCP connection opens: its facts are looked up once (the address it was made to, its arrival interface), the
    /// admission decides whether it is served or refused (answered 403 once its headers are in), and it enters the
    /// table in its class, evicting the connection that waited longest when the class is full.
    private func openTCP(_ descriptor: Int32, peer: IPAddress) {
        let local = SockaddrStorage.localEndpoint(of: descriptor)?.address
        let refusal = admission.refuseConnection?(peer, local, ConnectionFacts.arrivalInterface(of: descriptor))
        guard
            let connection = register(
                descriptor, peer: .ip(peer), local: local, credentials: nil, refusal: refusal)
        else { return }
        table.open(
            connection.id, descriptor: descriptor, peer: .address(peer.unmapped), refused: refusal != nil,
            requestIn: ConnectionFacts.requestIn(descriptor), at: turnNow)
        for descriptor in table.makeRoom(for: connection.id, within: limits.budget) { cut(descriptor) }
    }

    /// One turn: accepts until the queue is empty or `turnLimit` are taken; a connection over the listener's limit is
    /// closed at once, one over its user's is shut down (and named to `admission.refusedProcess`).
    private func acceptUnix() {
        for _ in 0..<Self.turnLimit {
            let descriptor = aiden_accept(listener, nil, nil)
            guard descriptor >= 0 else {
                if errno == EINTR || errno == ECONNABORTED { continue }
                if errno != EAGAIN, errno != EWOULDBLOCK {
                    _ = aiden_epoll_set(epoll, aiden_epoll_remove, listener, 0, Self.listenerKey)
                    listenerRestsUntil = now() + .milliseconds(10)
                }
                return
            }
            guard table.count < limits.connectionLimit else {
                close(descriptor)
                continue
            }
            let credentials = ConnectionFacts.credentials(of: descriptor)
            guard
                let connection = register(
                    descriptor, peer: .unixSocket, local: nil, credentials: credentials, refusal: nil)
            else { continue }
            let open = table.open(
                connection.id, descriptor: descriptor, peer: credentials.map { ConnectionTable.peerKey(uid: $0.uid) },
                at: turnNow)
            if let credentials, open > limits.perPeerConnectionLimit {
                if let descriptor = table.refuse(connection.id) { cut(descriptor) }
                admission.refusedProcess?(credentials, open)
            }
        }
    }

    /// Makes the connection and watches it; nil (and the descriptor closed) when epoll would not take it.
    private func register(
        _ descriptor: Int32, peer: HTTPRequest.Peer, local: IPAddress?, credentials: HTTPRequest.Credentials?,
        refusal: HTTPResponse?
    ) -> ServerConnection? {
        let id = nextID
        nextID += 1
        let connection = ServerConnection(
            id: id, descriptor: descriptor, peer: peer, local: local, credentials: credentials, refusal: refusal,
            limits: parserLimits)
        connection.interest = aiden_epoll_in | aiden_epoll_rdhup
        guard aiden_epoll_set(epoll, aiden_epoll_add, descriptor, connection.interest, UInt64(id)) == 0 else {
            close(descriptor)
            return nil
        }
        connections[id] = connection
        byDescriptor[descriptor] = connection
        return connection
    }

    // MARK: Serving

    private func service(_ id: UInt, events: UInt32) {
        guard let connection = connections[id] else { return }
        if events & aiden_epoll_err != 0 {
            drop(connection)
            return
        }
        if events & aiden_epoll_out != 0 {
            flush(connection)
            guard connection.isOpen else { return }
        }
        if events & aiden_epoll_in != 0 {
            read(connection)
        } else if events & (aiden_epoll_rdhup | aiden_epoll_hup) != 0 {
            // The peer is gone while its answer is owed or being sent: nobody is left to read it.
            drop(connection)
        }
    }

    /// One `recv` (the level-triggered wait comes back for the rest), then as many requests as are in.
    private func read(_ connection: ServerConnection) {
        let count = scratch.withUnsafeMutableBytes { buffer in
            recv(connection.descriptor, buffer.baseAddress, buffer.count, 0)
        }
        guard count > 0 else {
            if count == 0 || (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) { drop(connection) }
            return
        }
        if connection.lingerUntil != nil { return }  // read and dropped
        if connection.input.isEmpty, let standing = connection.standing, !stopping, !connection.isBusy,
            connection.pending == nil, connection.parser.isAtRequestStart,
            scratch.withUnsafeBytes({ standing.answers(UnsafeRawBufferPointer(rebasing: $0[..<count])) })
        {
            answerAgain(standing, on: connection)
            return
        }
        if connection.input.isEmpty {
            connection.input = Array(scratch[0..<count])
        } else {
            connection.input.append(contentsOf: scratch[0..<count])
        }
        serve(connection)
    }

    /// Parses and answers the requests in the connection's bytes until it waits for more, or for its answer.
    private func serve(_ connection: ServerConnection) {
        while !connection.isBusy, connection.isOpen {
            let start = connection.cursor
            switch connection.parser.next(in: connection.input, at: &connection.cursor) {
            case .needMore:
                connection.compactInput()
                updateInterest(connection)
                return
            case let .head(head):
                table.headersArrived(connection.id)
                if let refusal = connection.refusal {
                    table.requestArrived(connection.id)
                    answer(connection, refusal, headOnly: head.isHead, closing: true)
                    continue
                }
                let request = connection.request(head)
                if let admit = admission.admitHeaders, let refusal = admit(request) {
                    table.requestArrived(connection.id)
                    answer(connection, refusal, headOnly: head.isHead, closing: true)
                    continue
                }
                connection.pending = (request, head)
                connection.pendingBytes = head.framing == .none ? start..<connection.cursor : nil
                if head.expectsContinue, case let .length(length) = head.framing, length <= limits.maxBodyBytes {
                    send(connection, Self.continueLine[...], isAnswer: false)
                } else if head.expectsContinue, head.framing == .chunked {
                    send(connection, Self.continueLine[...], isAnswer: false)
                }
            case let .body(body):
                table.requestArrived(connection.id)
                guard let (request, head) = connection.pending else { continue }
                let bytes = connection.pendingBytes
                connection.pending = nil
                connection.pendingBytes = nil
                var whole = request
                whole.body = body
                handle(whole, head: head, bytes: bytes, on: connection)
            case let .failed(failure):
                table.requestArrived(connection.id)
                connection.pending = nil
                connection.pendingBytes = nil
                answer(connection, Self.response(for: failure), headOnly: false, closing: true)
            }
        }
        connection.compactInput()
        if connection.isOpen { updateInterest(connection) }
    }

    private static let continueLine = Array("HTTP/1.1 100 Continue\r\n\r\n".utf8)

    /// `bytes`: where the request is in the connection's input, when it has no body (a standing answer may be kept
    /// for it).
    private func handle(
        _ request: HTTPRequest, head: HTTPRequestParser.Head, bytes: Range<Int>?, on connection: ServerConnection
    ) {
        guard !stopping else {
            answer(
                connection, HTTPResponses.unavailable("the server is stopping"), headOnly: head.isHead, closing: true)
            return
        }
        switch handler(request) {
        case let .now(response):
            let wire = answer(
                connection, response, headOnly: head.isHead, closing: head.closeAfter,
                keepingAlive: head.keepAliveAsked)
            if let validity = response.validity, let bytes, !wire.closes, connection.isOpen {
                keepStanding(connection, request: bytes, wire: wire, headOnly: head.isHead, validity: validity)
            }
        case let .later(start):
            connection.serial &+= 1
            let serial = connection.serial
            let id = connection.id
            connection.owed = (serial, turnNow, head.isHead, head.closeAfter, head.keepAliveAsked)
            watched.insert(id)
            start { [self] response in post(response, to: id, serial: serial) }
        }
    }

    /// Keeps the answer just sent for a repeat of its request (`StandingAnswer`); the request's bytes are copied only
    /// when they differ from the ones kept, as a repeat's after a publication do not.
    private func keepStanding(
        _ connection: ServerConnection, request bytes: Range<Int>, wire: WireResponse, headOnly: Bool,
        validity: AnswerValidity
    ) {
        let kept = connection.standing?.request
        let request = kept.flatMap { $0.elementsEqual(connection.input[bytes]) ? $0 : nil }
        connection.standing = StandingAnswer(
            request: request ?? Array(connection.input[bytes]), wire: wire, headOnly: headOnly, validity: validity)
    }

    /// A repeat of the request the connection's standing answer is for, while it holds: that answer again, with no
    /// request built and no handler asked.
    private func answerAgain(_ standing: StandingAnswer, on connection: ServerConnection) {
        table.requestArrived(connection.id)
        standing.wire.redate(currentDate())
        connection.closeAfter = false
        send(connection, standing.wire.sent(headOnly: standing.headOnly), isAnswer: true)
    }

    /// The answers other threads gave since the last look, each sent if its request still waits for it.
    private func takeInbox() {
        var count: UInt64 = 0
        _ = Glibc.read(wake, &count, MemoryLayout<UInt64>.size)
        let answers = inbox.withLock { inbox in
            defer { inbox.answers = [] }
            return inbox.answers
        }
        for (id, serial, response) in answers {
            guard let connection = connections[id], let owed = connection.owed, owed.serial == serial else { continue }
            answerOwed(connection, response)
        }
    }

    private func answerOwed(_ connection: ServerConnection, _ response: HTTPResponse) {
        guard let owed = connection.owed else { return }
        connection.owed = nil
        answer(
            connection, response, headOnly: owed.headOnly, closing: owed.closeAfter || stopping,
            keepingAlive: owed.keepAliveAsked)
        // The requests that came behind it.
        if connection.isOpen, !connection.isBusy { serve(connection) }
    }

    /// Sends an answer: a reusable one from the bytes kept for it, any other built now. Returns what it sent.
    @discardableResult
    private func answer(
        _ connection: ServerConnection, _ response: HTTPResponse, headOnly: Bool, closing: Bool,
        keepingAlive: Bool = false
    ) -> WireResponse {
        let date = currentDate()
        let wire =
            response.reusable && !closing && !keepingAlive
            ? prepared.wire(for: response, now: date)
            : WireResponse(response, date: date, closing: closing, keepingAlive: keepingAlive)
        connection.closeAfter = wire.closes
        send(connection, wire.sent(headOnly: headOnly), isAnswer: true)
        return wire
    }

    /// Writes what the socket takes now and keeps the rest for `EPOLLOUT`.
    private func send(_ connection: ServerConnection, _ bytes: ArraySlice<UInt8>, isAnswer: Bool) {
        if connection.output.isEmpty {
            let sent = bytes.withUnsafeBytes { raw in
                Glibc.send(connection.descriptor, raw.baseAddress, raw.count, Int32(MSG_NOSIGNAL))
            }
            if sent == bytes.count {
                if isAnswer { answerSent(connection) }
                return
            }
            guard sent >= 0 || errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR else {
                drop(connection)
                return
            }
            connection.output = Array(bytes.dropFirst(max(sent, 0)))
        } else {
            connection.output.append(contentsOf: bytes)
        }
        if isAnswer { connection.answerInOutput = true }
        connection.lastProgress = turnNow
        watched.insert(connection.id)
        updateInterest(connection)
    }

    /// The socket has room again: more of the answer goes out.
    private func flush(_ connection: ServerConnection) {
        guard !connection.output.isEmpty else { return }
        let sent = connection.output.withUnsafeBytes { raw in
            Glibc.send(connection.descriptor, raw.baseAddress, raw.count, Int32(MSG_NOSIGNAL))
        }
        guard sent >= 0 else {
            if errno != EAGAIN, errno != EWOULDBLOCK, errno != EINTR { drop(connection) }
            return
        }
        connection.lastProgress = turnNow
        connection.output.removeFirst(sent)
        guard connection.output.isEmpty else { return }
        if connection.answerInOutput {
            connection.answerInOutput = false
            answerSent(connection)
        }
        guard connection.isOpen else { return }
        updateInterest(connection)
        serve(connection)
    }

    /// The whole answer is out: the request is over, and its connection waits for the next one or closes.
    private func answerSent(_ connection: ServerConnection) {
        let now = turnNow
        table.answered(connection.id, at: now)
        guard connection.closeAfter else { return }
        // The write side is shut so the peer sees the end of the answer; what it still sends is read and dropped
        // for a moment (closing with unread bytes would reset the connection, and the peer could lose the answer).
        shutdown(connection.descriptor, Int32(SHUT_WR))
        connection.lingerUntil = now + Self.lingerLimit
        watched.insert(connection.id)
        updateInterest(connection)
    }

    /// What to wait for: the next request's bytes while idle or lingering; room in the socket while an answer is
    /// going out (a peer that only half-closed still gets it, and one that is gone fails the send); the peer's
    /// hang-up while its answer is owed (a long-poll whose client left is dropped, as it was never read again).
    private func updateInterest(_ connection: ServerConnection) {
        var wanted: UInt32
        if stopping {
            wanted = aiden_epoll_out
        } else if !connection.output.isEmpty {
            wanted = aiden_epoll_out
        } else if connection.owed != nil {
            wanted = aiden_epoll_rdhup
        } else {
            wanted = aiden_epoll_in | aiden_epoll_rdhup
        }
        guard wanted != connection.interest else { return }
        connection.interest = wanted
        _ = aiden_epoll_set(epoll, aiden_epoll_modify, connection.descriptor, wanted, UInt64(connection.id))
    }

    /// A connection the table cut (overdue, evicted, over its user's limit) is closed at once, so that it stops
    /// counting against the room the next connections need: nothing it sends is read any more.
    private func cut(_ descriptor: Int32) {
        if let connection = byDescriptor[descriptor] { drop(connection) }
    }

    /// Closes the connection now, forgetting it (an owed answer is dropped when it comes).
    private func drop(_ connection: ServerConnection) {
        guard connections.removeValue(forKey: connection.id) != nil else { return }
        byDescriptor[connection.descriptor] = nil
        connection.isOpen = false
        watched.remove(connection.id)
        table.close(connection.id)
        _ = aiden_epoll_set(epoll, aiden_epoll_remove, connection.descriptor, 0, 0)
        close(connection.descriptor)
    }

    /// What answers bytes that are not a request.
    static func response(for failure: HTTPRequestParser.Failure) -> HTTPResponse {
        switch failure {
        case let .bodyTooLarge(limit):
            return HTTPResponses.payloadTooLarge(limit: limit)
        case .headersTooLarge:
            return JSONError(status: 431, code: "headers_too_large", message: failure.description).response
        case .malformed:
            return JSONError(status: 400, code: "bad_request", message: failure.description).response
        case .unsupportedTransferCoding:
            return JSONError(status: 501, code: "not_implemented", message: failure.description).response
        case .unsupportedVersion:
            return JSONError(status: 505, code: "version_not_supported", message: failure.description).response
        }
    }
}
