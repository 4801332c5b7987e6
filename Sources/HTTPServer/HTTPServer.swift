import BoardAPI
internal import CMicroHTTPD
import Dispatch
import NetworkAddress
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// An HTTP/1.1 server on libmicrohttpd: one daemon per listening socket, each with one internal
/// epoll thread (memory flat in the number of clients); a TCP listener's connections are accepted by the server's
/// own loop (`AcceptLoop`) and handed over. Requests are collected whole (bounded by
/// `maxBodyBytes`) and handed to a synchronous, non-blocking handler that returns the response, or
/// (`HTTPReply.later`) says it will come from other work: the connection is then suspended
/// (`MHD_suspend_connection`), holding its slot but not the thread, until the work responds from any thread
/// (within `HTTPServerLimits.longestDeferral`), and the thread serves the other connections.
/// `admission` refuses connections (answered 403 from their own budget) and requests before they are read; a
/// one-shot timer on its own queue shuts down connections that miss the request or header deadline
/// (`HTTPServerLimits`).
package final class HTTPServer: Sendable {
    package typealias Handler = @Sendable (HTTPRequest) -> HTTPResponse
    /// A handler that may answer later (`HTTPReply.later`), without holding the server's thread.
    package typealias ReplyHandler = @Sendable (HTTPRequest) -> HTTPReply

    private let daemons: Mutex<[DaemonHandle]>
    /// What each daemon listens on, in the order given.
    package let listeners: [ListeningSocket.Kind]

    /// Starts serving on every socket, every request answered at once by `handler`.
    package convenience init(
        sockets: [ListeningSocket], limits: HTTPServerLimits = HTTPServerLimits(),
        admission: HTTPServerAdmission = HTTPServerAdmission(), handler: @escaping Handler
    ) throws(HTTPServerError) {
        try self.init(sockets: sockets, limits: limits, admission: admission, replying: { .now(handler($0)) })
    }

    /// Starts serving on every socket, with a handler that may answer later; on failure, nothing is left running
    /// and the sockets are closed.
    package init(
        sockets: [ListeningSocket], limits: HTTPServerLimits = HTTPServerLimits(),
        admission: HTTPServerAdmission = HTTPServerAdmission(), replying handler: @escaping ReplyHandler
    ) throws(HTTPServerError) {
        var started: [DaemonHandle] = []
        for (index, socket) in sockets.enumerated() {
            let context = ServerContext(
                handler: handler, limits: limits,
                isUnixSocket: { if case .unix = socket.kind { true } else { false } }(), admission: admission)
            guard let daemon = DaemonHandle.start(socket: socket, context: context, limits: limits) else {
                started.forEach { $0.stop() }
                for remaining in sockets[index...] { close(remaining.descriptor) }
                throw HTTPServerError.startFailed("\(socket.kind)")
            }
            started.append(daemon)
        }
        self.daemons = Mutex(started)
        self.listeners = sockets.map(\.kind)
    }

    /// Stops every daemon (closing its socket). A request being handled finishes; one whose answer is still owed
    /// (`HTTPReply.later`) is answered 503 first, with half a second to go out. Idempotent.
    package func stop() {
        let running = daemons.withLock { list -> [DaemonHandle] in
            defer { list.removeAll() }
            return list
        }
        running.forEach { $0.stop() }
    }

    deinit { stop() }
}

package enum HTTPServerError: Error, Equatable, Sendable, CustomStringConvertible {
    case startFailed(String)

    package var description: String {
        switch self {
        case let .startFailed(listener): return "libmicrohttpd could not start on \(listener)"
        }
    }
}

/// One running MHD daemon and the context object it holds a reference to (with the request deadline's sweep), and
/// on TCP the accept loop that hands it its connections.
private struct DaemonHandle: @unchecked Sendable {  // the MHD pointer is only used to stop the daemon, once
    let daemon: OpaquePointer
    let context: Unmanaged<ServerContext>
    /// TCP only: the listener, which the loop accepts on (a Unix socket's daemon accepts on its own, and closes it).
    let acceptLoop: (loop: AcceptLoop, listener: Int32)?

    static let evictionHeadroom = 24

    static func start(socket: ListeningSocket, context: ServerContext, limits: HTTPServerLimits) -> DaemonHandle? {
        let retained = Unmanaged.passRetained(context)
        let cls = retained.toOpaque()
        let isTCP = { if case .tcp = socket.kind { true } else { false } }()
        // On TCP the table keeps the served and the refused peers' budgets (and each peer's) itself, so that a
        // connection over one evicts another instead of being closed or left waiting in the backlog. The headroom
        // holds the evicted ones until libmicrohttpd closes them, in its next turn; its last half is only for
        // connections that bring their request (`AcceptTriage`). The accept loop hands over no more than that
        // (`ConnectionTable.count`); libmicrohttpd's own limit is one above, since it closes a connection's
        // descriptor (which the loop may then accept again) just before it counts it closed.
        let intakeLimit = limits.connectionLimit + limits.refusedConnectionLimit + Self.evictionHeadroom
        var options: [MHD_OptionItem] = [
            MHD_OptionItem(
                option: .CONNECTION_LIMIT, value: isTCP ? intakeLimit + 1 : limits.connectionLimit, ptr_value: nil),
            MHD_OptionItem(option: .CONNECTION_TIMEOUT, value: limits.idleTimeoutSeconds, ptr_value: nil),
            MHD_OptionItem(option: .CONNECTION_MEMORY_LIMIT, value: limits.connectionMemoryBytes, ptr_value: nil),
            MHD_OptionItem(
                option: .NOTIFY_COMPLETED,
                value: unsafeBitCast(requestCompleted as MHD_RequestCompletedCallback, to: Int.self),
                ptr_value: cls),
            MHD_OptionItem(
                option: .NOTIFY_CONNECTION,
                value: unsafeBitCast(connectionNotified as MHD_NotifyConnectionCallback, to: Int.self),
                ptr_value: cls),
        ]
        if !isTCP {
            options.append(MHD_OptionItem(option: .LISTEN_SOCKET, value: Int(socket.descriptor), ptr_value: nil))
        }
        options.append(MHD_OptionItem(option: .END, value: 0, ptr_value: nil))
        // Suspend and resume (with the inter-thread channel that wakes the epoll thread on a resume): a request
        // whose answer comes later holds its connection, never the thread. The same channel wakes it for each
        // connection the accept loop hands over.
        var flags = MHD_USE_EPOLL_INTERNAL_THREAD.rawValue | MHD_ALLOW_SUSPEND_RESUME.rawValue
        if isTCP { flags |= MHD_USE_NO_LISTEN_SOCKET.rawValue }
        let daemon = options.withUnsafeMutableBufferPointer { buffer in
            aiden_mhd_start(UInt32(flags), 0, nil, cls, accessHandler, cls, buffer.baseAddress)
        }
        guard let daemon else {
            retained.release()
            return nil
        }
        guard isTCP else { return DaemonHandle(daemon: daemon, context: retained, acceptLoop: nil) }
        guard
            let loop = AcceptLoop.start(
                listener: socket.descriptor, daemon: daemon, context: context, intakeLimit: intakeLimit,
                reserved: Self.evictionHeadroom / 2)
        else {
            MHD_stop_daemon(daemon)
            retained.release()
            return nil
        }
        return DaemonHandle(daemon: daemon, context: retained, acceptLoop: (loop, socket.descriptor))
    }

    func stop() {
        let server = context.takeUnretainedValue()
        server.stopSweep()
        // libmicrohttpd must not stop with a connection suspended: every deferred answer is sent (resumed) first,
        // and given half a second to go out before the daemon closes the connections.
        let owed = server.answerAllDeferrals()
        let clock = ContinuousClock()
        let until = clock.now + .milliseconds(500)
        while owed.contains(where: { !$0.isComplete }), clock.now < until { usleep(5_000) }
        // No connection is handed over once the daemon stops.
        acceptLoop?.loop.stop()
        MHD_stop_daemon(daemon)
        if let listener = acceptLoop?.listener { close(listener) }
        context.release()
    }
}
