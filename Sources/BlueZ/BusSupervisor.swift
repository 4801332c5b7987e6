import DBusModel
import Platform
import Retry
import Synchronization

/// Keeps one bus connection, and a session that lives on it, alive: connects, starts the session, and when
/// the connection cannot be made or is lost (dbus-daemon restarted) tries again after `Backoff` delays on the
/// runtime's clock. The board's GATT peripheral, the phone's Wake central and the phone's desktop surfaces
/// (`SessionBus`) each live on one, so all recover the same way; a retry waits on one timer, never on a
/// sleeping thread.
package final class BusSupervisor<Session: Sendable>: Sendable {
    /// What happened to the connection, for the owner's facts and logs.
    package enum Event: Sendable {
        /// Connected as `uniqueName`, and `session` started on the connection.
        case connected(Session, uniqueName: String)
        /// An attempt failed; the next one starts after `retryIn`.
        case failed(DBusError, retryIn: Duration)
        /// The connection went away; a new attempt starts after the first backoff delay (never at once: a bus
        /// that accepts and then drops us must not be reconnected in a tight loop).
        case lost
    }

    /// How to open the connection and the session on it, and whom to tell.
    package struct Hooks: Sendable {
        package var connect: @Sendable () async throws(DBusError) -> any BusConnection
        package var open: @Sendable (any BusConnection) async throws(DBusError) -> Session
        package var close: @Sendable (Session) async -> Void
        package var changed: @Sendable (Event) -> Void

        /// - Parameters:
        ///   - connect: opens a connection (to the system bus, or the session bus).
        ///   - open: starts the session on it; a failure closes the connection and counts as a failed attempt.
        ///   - close: stops a session whose connection was lost, or at `stop()`.
        ///   - changed: called for every `Event`, outside any lock.
        package init(
            connect: @escaping @Sendable () async throws(DBusError) -> any BusConnection,
            open: @escaping @Sendable (any BusConnection) async throws(DBusError) -> Session,
            close: @escaping @Sendable (Session) async -> Void,
            changed: @escaping @Sendable (Event) -> Void
        ) {
            self.connect = connect
            self.open = open
            self.close = close
            self.changed = changed
        }
    }

    private struct State: Sendable {
        var hooks: Hooks?
        var connection: (any BusConnection)?
        var session: Session?
        /// Counts connections made, so a late `onDisconnect` of an old one is ignored.
        var connectionID: UInt64 = 0
        var failures = 0
        var retry: (any ScheduledWork)?
        var stopped = false
    }

    private let backoff: Backoff
    private let runtime: any Runtime
    private let logger: Logger
    /// Which bus, for the log lines: "system bus" or "session bus".
    private let busName: String
    private let state = Mutex(State())

    package init(backoff: Backoff, runtime: any Runtime, logger: Logger, busName: String = "system bus") {
        self.backoff = backoff
        self.runtime = runtime
        self.logger = logger
        self.busName = busName
    }

    /// Starts the first attempt (concurrently: this returns at once).
    package func start(_ hooks: Hooks) {
        state.withLock { $0.hooks = hooks }
        runtime.spawn { [self] in await attempt() }
    }

    /// Stops retrying, closes the session and then the connection.
    package func stop() async {
        let (hooks, session, connection) = state.withLock { state in
            state.stopped = true
            state.retry?.cancel()
            state.retry = nil
            defer {
                state.session = nil
                state.connection = nil
            }
            return (state.hooks, state.session, state.connection)
        }
        if let hooks, let session { await hooks.close(session) }
        connection?.close()
    }

    /// The session on the current connection; nil while connecting or after a loss.
    package var session: Session? { state.withLock { $0.session } }

    private func attempt() async {
        guard let hooks = state.withLock({ $0.stopped ? nil : $0.hooks }) else { return }
        let connection: any BusConnection
        let session: Session
        do throws(DBusError) {
            connection = try await hooks.connect()
            do throws(DBusError) {
                session = try await hooks.open(connection)
            } catch {
                connection.close()
                throw error
            }
        } catch {
            failed(error, hooks)
            return
        }
        let id = state.withLock { state -> UInt64? in
            guard !state.stopped else { return nil }
            state.connectionID += 1
            state.connection = connection
            state.session = session
            state.failures = 0
            return state.connectionID
        }
        guard let id else {
            await hooks.close(session)
            connection.close()
            return
        }
        hooks.changed(.connected(session, uniqueName: connection.uniqueName))
        connection.onDisconnect { [weak self] in self?.lost(id) }
    }

    private func failed(_ error: DBusError, _ hooks: Hooks) {
        let delay = state.withLock { state -> Duration? in
            guard !state.stopped else { return nil }
            state.failures += 1
            let delay = backoff.delay(afterFailures: state.failures)
            state.retry = runtime.schedule(after: delay) { [weak self] in self?.retryDue() }
            return delay
        }
        guard let delay else { return }
        logger.warning("\(busName): \(error); retrying in \(delay)")
        hooks.changed(.failed(error, retryIn: delay))
    }

    private func retryDue() {
        state.withLock { $0.retry = nil }
        runtime.spawn { [self] in await attempt() }
    }

    private func lost(_ id: UInt64) {
        let lost = state.withLock { state -> (Hooks, Session?, (any BusConnection)?)? in
            guard !state.stopped, state.connectionID == id, let hooks = state.hooks else { return nil }
            defer {
                state.session = nil
                state.connection = nil
            }
            return (hooks, state.session, state.connection)
        }
        guard let (hooks, session, connection) = lost else { return }
        // Never at once: a bus that accepts and then drops us must not be reconnected in a tight loop.
        let delay = backoff.delay(afterFailures: 1)
        logger.warning("lost the \(busName); reconnecting in \(delay)")
        hooks.changed(.lost)
        runtime.spawn { [self] in
            // The old session's timers and subscriptions go with its connection.
            if let session { await hooks.close(session) }
            connection?.close()
            state.withLock { state in
                guard !state.stopped else { return }
                state.retry = runtime.schedule(after: delay) { [weak self] in self?.retryDue() }
            }
        }
    }
}
