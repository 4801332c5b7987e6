import BoardAPI
import Dispatch
import NetworkAddress
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// What the C callbacks of one daemon need, passed to them as the context pointer.
final class ServerContext: Sendable {
    let handler: HTTPServer.Handler
    let limits: HTTPServerLimits
    let isUnixSocket: Bool
    let admission: HTTPServerAdmission
    /// Every open connection and how long it has waited for a request (the request deadline).
    let connections = Mutex(ConnectionTable())
    private let origin = ContinuousClock.now
    /// Fires at the next connection's deadline and only then (`waitBegan`): an idle server never wakes for it.
    private let sweep = DeadlineTimer(queue: DispatchQueue(label: "aiden.http.deadline"))

    init(
        handler: @escaping HTTPServer.Handler, limits: HTTPServerLimits, isUnixSocket: Bool,
        admission: HTTPServerAdmission
    ) {
        self.handler = handler
        self.limits = limits
        self.isUnixSocket = isUnixSocket
        self.admission = admission
        sweep.setHandler { [weak self] in self?.cutOverdueConnections() }
    }

    /// A connection began to wait for a request at `now` (it opened, or its answer ended): the sweep is armed
    /// for its deadline unless armed for an earlier one, whose firing arms the next. Call it under the table's
    /// lock, so a sweep that found nothing waiting cannot leave the timer disarmed after a wait began.
    func waitBegan(at now: Duration) {
        sweep.arm(at: now + limits.requestDeadline, now: now)
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
            for descriptor in table.overdue(at: now, deadline: limits.requestDeadline) {
                shutdown(descriptor, Int32(SHUT_RDWR))
            }
            sweep.fired()
            // Answers since have moved the waits on: the next deadline, or none until a wait begins.
            sweep.arm(at: table.nextDeadline(limits.requestDeadline), now: now)
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
}
