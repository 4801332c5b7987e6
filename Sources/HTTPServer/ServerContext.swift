import BoardAPI
internal import CMicroHTTPD
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
    /// The connections suspended until their answer comes (`HTTPReply.later`). Its lock also orders each resume
    /// before the daemon stops: libmicrohttpd must not be told to resume a connection it has freed.
    private let suspended = Mutex(SuspendedConnections())
    private let origin = ContinuousClock.now

    init(
        handler: @escaping HTTPServer.ReplyHandler, limits: HTTPServerLimits, isUnixSocket: Bool,
        admission: HTTPServerAdmission
    ) {
        self.handler = handler
        self.limits = limits
        self.isUnixSocket = isUnixSocket
        self.admission = admission
    }

    /// Monotonic time since the server started (the table's clock).
    func now() -> Duration { ContinuousClock.now - origin }

    /// Shuts down the connections that have waited longer than the request deadline. Under the table's lock, so a
    /// descriptor is shut down only while its connection is still open: libmicrohttpd reports a connection closed
    /// (and the table forgets it) before it closes the descriptor, which a new connection may then reuse.
    func cutOverdueConnections() {
        let now = now()
        connections.withLock { table in
            for descriptor in table.overdue(at: now, deadline: limits.requestDeadline) {
                shutdown(descriptor, Int32(SHUT_RDWR))
            }
        }
    }

    /// On the server's thread, in the access handler: suspends the connection until `start`'s work responds.
    /// false when the server is stopping (nothing is suspended then; the caller closes the connection).
    func suspend(
        _ connection: OpaquePointer,
        until start: @Sendable (_ respond: @escaping @Sendable (HTTPResponse) -> Void) -> Void
    ) -> Bool {
        let id = connectionID(connection)
        let token = suspended.withLock { table -> UInt64? in
            guard !table.stopped else { return nil }
            table.next += 1
            table.entries[id] = SuspendedConnections.Entry(connection: connection, token: table.next)
            MHD_suspend_connection(connection)
            return table.next
        }
        guard let token else { return false }
        start { [self] response in resume(id, token: token, with: response) }
        return true
    }

    /// The answer came: libmicrohttpd resumes the connection and calls the access handler again, which sends it.
    /// Dropped when the server stopped meanwhile, or the connection is no longer the one that asked.
    private func resume(_ id: UInt, token: UInt64, with response: HTTPResponse) {
        suspended.withLock { table in
            guard !table.stopped, let entry = table.entries[id], entry.token == token, !entry.resumed else { return }
            table.entries[id]?.response = response
            table.entries[id]?.resumed = true
            MHD_resume_connection(entry.connection)
        }
    }

    /// On the server's thread, when the access handler is called again for a resumed request: its answer (nil when
    /// the server stopped first: the connection is closed).
    func resumedAnswer(_ connection: OpaquePointer) -> HTTPResponse? {
        suspended.withLock { $0.entries.removeValue(forKey: connectionID(connection))?.response }
    }

    /// The request ended (answered, or its connection closed): it no longer waits.
    func forgetSuspended(_ connection: OpaquePointer) {
        _ = suspended.withLock { $0.entries.removeValue(forKey: connectionID(connection)) }
    }

    /// Before the daemon stops: every suspended connection is resumed without an answer, and none is resumed after.
    func resumeAllForStop() {
        suspended.withLock { table in
            table.stopped = true
            for (id, entry) in table.entries where !entry.resumed {
                table.entries[id]?.resumed = true
                MHD_resume_connection(entry.connection)
            }
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
    var body: [UInt8] = []
    var bodyTooLarge = false
    var responded = false
    /// Its connection was suspended until the answer comes (`HTTPReply.later`).
    var suspended = false
}

/// The connections of one daemon suspended until their answer comes, by connection id. Each suspension has its own
/// token, so an answer can never resume a later connection that reused the id.
struct SuspendedConnections: @unchecked Sendable {  // the pointers are used only under the context's lock
    struct Entry {
        let connection: OpaquePointer
        let token: UInt64
        var response: HTTPResponse?
        var resumed = false
    }

    var entries: [UInt: Entry] = [:]
    var next: UInt64 = 0
    /// The daemon is stopping: nothing more is suspended or resumed.
    var stopped = false
}
