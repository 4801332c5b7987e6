internal import CDBus
import DBusModel
import Glibc
import Platform
import Synchronization

/// One libdbus connection serviced by one dedicated thread.
///
/// Every libdbus call on the connection happens on that thread (after the setup in `open`, which happens
/// before the thread starts): other threads hand it `Command`s through a locked inbox and an eventfd wakeup.
/// The thread sleeps in `poll(2)` on libdbus's watches and the eventfd, with the timeout of the earliest
/// libdbus timeout (or none): idle is idle. Method-call timeouts are libdbus pending-call timeouts, serviced
/// by the same loop; replies resume Swift continuations from the pending-call notify, which never blocks.
///
/// `@unchecked Sendable`: the mutable libdbus state (`watches`, `timeouts`, calls in flight and queued) is
/// confined to the loop thread; everything shared is behind `inbox` (a `Mutex`) or atomic.
final class DBusEventLoop: @unchecked Sendable {
    /// Work for the loop thread; `cancel` runs instead (on any thread) when the loop has stopped.
    struct Command: Sendable {
        let run: @Sendable (DBusEventLoop) -> Void
        let cancel: @Sendable () -> Void
    }

    private struct Inbox: Sendable {
        var commands: [Command] = []
        var wakePending = false
        var stopRequested = false
        var closed = false
        var thread: pthread_t?
        var loopThread: pthread_t?
        var disconnectHandlers: [@Sendable () -> Void] = []
        var disconnectReported = false
    }

    struct TimeoutEntry {
        let timeout: OpaquePointer
        var deadline: ContinuousClock.Instant?
    }

    /// Messages dispatched per loop iteration, so a flood of incoming messages cannot starve outgoing ones.
    private static let dispatchBatch = 64

    let registry = DBusObjectRegistry()
    let router = DBusSignalRouter()
    /// Where deferred method handlers run: not Swift's global executor, whose first job would start
    /// libdispatch's 1 s monitor timer for the rest of the process (`DispatchTaskExecutor`).
    private let handlerExecutor = DispatchTaskExecutor(label: "aiden.dbus.handlers")

    let connection: OpaquePointer
    private let wakeFD: Int32
    private let inbox = Mutex(Inbox())
    private let connected = Atomic<Bool>(true)

    // Loop-thread state (see the type's comment).
    var watches: [OpaquePointer] = []
    var timeouts: [TimeoutEntry] = []
    var outstanding: [ObjectIdentifier: DBusPendingReply] = [:]
    var queuedCalls: [QueuedCall] = []
    private(set) var closing = false

    private init(connection: OpaquePointer, wakeFD: Int32) {
        self.connection = connection
        self.wakeFD = wakeFD
    }

    /// Connects to `address` (libdbus address syntax) and starts the loop thread. Authentication and `Hello`
    /// happen on the loop, afterwards.
    static func open(address: String) throws(DBusError) -> DBusEventLoop {
        _ = dbus_threads_init_default()
        guard !address.utf8.contains(0) else { throw .invalidArgs("bus address contains NUL") }
        var error = CDBus.DBusError()
        dbus_error_init(&error)
        defer { dbus_error_free(&error) }
        guard let connection = dbus_connection_open_private(address, &error) else {
            throw DBusError(libdbus: error, fallback: "cannot connect to the bus at '\(address)'")
        }
        let wakeFD = aiden_dbus_wakeup_fd_create()
        guard wakeFD >= 0 else {
            dbus_connection_close(connection)
            dbus_connection_unref(connection)
            throw .failed("cannot create the D-Bus thread's eventfd (errno \(errno))")
        }
        let loop = DBusEventLoop(connection: connection, wakeFD: wakeFD)
        do {
            try loop.installCallbacks()
            try loop.startThread()
        } catch {
            loop.finish()
            throw error
        }
        return loop
    }

    var isConnected: Bool { connected.load(ordering: .acquiring) }

    // MARK: Any thread

    /// Queues `command` for the loop thread; false (and `cancel` called) when the loop has stopped.
    @discardableResult
    func enqueue(_ command: Command) -> Bool {
        let accepted = inbox.withLock { inbox in
            guard !inbox.stopRequested, !inbox.closed else { return false }
            inbox.commands.append(command)
            if !inbox.wakePending {
                inbox.wakePending = true
                wake()
            }
            return true
        }
        if !accepted { command.cancel() }
        return accepted
    }

    /// Sends `message` from the loop thread. Throws for an invalid message or a closed connection.
    func send(_ message: DBusMessage) throws(DBusError) {
        try message.validate()
        guard isConnected else { throw .disconnected("the bus connection is closed") }
        let queued = enqueue(Command(run: { loop in _ = loop.sendNow(message) }, cancel: {}))
        guard queued else { throw .disconnected("the bus connection is closed") }
    }

    /// Sends a method call and waits for its answer (a method return or an error message) for at most `timeout`.
    func call(_ message: DBusMessage, timeout: Duration) async throws(DBusError) -> DBusMessage {
        try message.validate()
        guard message.type == .methodCall else { throw .invalidArgs("only a method call can be awaited") }
        let result = await withCheckedContinuation { (continuation: CheckedContinuation<DBusResult, Never>) in
            enqueue(
                Command(
                    run: { loop in
                        loop.startCall(message, timeout: timeout) { continuation.resume(returning: $0) }
                    },
                    cancel: { continuation.resume(returning: .failure(.disconnected("the bus connection is closed"))) }
                ))
        }
        return try result.get()
    }

    func onDisconnect(_ handler: @escaping @Sendable () -> Void) {
        let alreadyGone = inbox.withLock { inbox in
            if inbox.disconnectReported { return true }
            inbox.disconnectHandlers.append(handler)
            return false
        }
        if alreadyGone { handler() }
    }

    /// Stops the loop thread, closes the connection and fails whatever is still waiting with `Disconnected`.
    /// Waits for the thread unless called on it (from a handler).
    func shutdown() {
        let (thread, join) = inbox.withLock { inbox -> (pthread_t?, Bool) in
            guard !inbox.stopRequested else { return (nil, false) }
            inbox.stopRequested = true
            if !inbox.closed {
                inbox.wakePending = true
                wake()
            }
            let onLoopThread = inbox.loopThread.map { pthread_equal($0, pthread_self()) != 0 } ?? false
            return (inbox.thread, !onLoopThread)
        }
        guard let thread else { return }
        if join {
            pthread_join(thread, nil)
        } else {
            pthread_detach(thread)
        }
    }

    /// Called with the inbox locked, so the eventfd cannot be closed meanwhile.
    private func wake() {
        var one: UInt64 = 1
        _ = withUnsafeBytes(of: &one) { write(wakeFD, $0.baseAddress, $0.count) }
    }

    // MARK: Setup

    private func installCallbacks() throws(DBusError) {
        let context = Unmanaged.passUnretained(self).toOpaque()
        dbus_connection_set_exit_on_disconnect(connection, 0)
        guard
            dbus_connection_set_watch_functions(
                connection, dbusAddWatch, dbusRemoveWatch, dbusToggleWatch, context, nil) != 0,
            dbus_connection_set_timeout_functions(
                connection, dbusAddTimeout, dbusRemoveTimeout, dbusToggleTimeout, context, nil) != 0,
            dbus_connection_add_filter(connection, dbusFilter, context, nil) != 0
        else { throw .failed("libdbus could not install the event-loop callbacks") }
    }

    private func startThread() throws(DBusError) {
        let retained = Unmanaged.passRetained(self).toOpaque()
        var thread = pthread_t()
        let status = pthread_create(
            &thread, nil,
            { context in
                guard let context else { return nil }
                Unmanaged<DBusEventLoop>.fromOpaque(context).takeRetainedValue().run()
                return nil
            }, retained)
        guard status == 0 else {
            Unmanaged<DBusEventLoop>.fromOpaque(retained).release()
            throw .failed("cannot start the D-Bus thread (error \(status))")
        }
        inbox.withLock { $0.thread = thread }
    }

    // MARK: Loop thread

    private func run() {
        inbox.withLock { $0.loopThread = pthread_self() }
        var moreToDispatch = false
        while true {
            let watchSnapshot = watches.filter { dbus_watch_get_enabled($0) != 0 }
            var descriptors = [pollfd(fd: wakeFD, events: Int16(POLLIN), revents: 0)]
            for watch in watchSnapshot {
                let flags = dbus_watch_get_flags(watch)
                var events: Int16 = 0
                if flags & DBUS_WATCH_READABLE.rawValue != 0 { events |= Int16(POLLIN) }
                if flags & DBUS_WATCH_WRITABLE.rawValue != 0 { events |= Int16(POLLOUT) }
                descriptors.append(pollfd(fd: dbus_watch_get_unix_fd(watch), events: events, revents: 0))
            }
            let timeout = moreToDispatch ? 0 : nextTimeoutMilliseconds()
            var ready: Int32
            repeat {
                ready = poll(&descriptors, nfds_t(descriptors.count), timeout)
            } while ready < 0 && errno == EINTR

            for (index, watch) in watchSnapshot.enumerated() {
                let revents = descriptors[index + 1].revents
                guard revents != 0, watches.contains(watch), dbus_watch_get_enabled(watch) != 0 else { continue }
                var flags: UInt32 = 0
                if revents & Int16(POLLIN) != 0 { flags |= DBUS_WATCH_READABLE.rawValue }
                if revents & Int16(POLLOUT) != 0 { flags |= DBUS_WATCH_WRITABLE.rawValue }
                if revents & Int16(POLLERR) != 0 { flags |= DBUS_WATCH_ERROR.rawValue }
                if revents & Int16(POLLHUP) != 0 { flags |= DBUS_WATCH_HANGUP.rawValue }
                _ = dbus_watch_handle(watch, flags)
            }
            handleDueTimeouts()

            if descriptors[0].revents != 0 {
                var counter: UInt64 = 0
                _ = withUnsafeMutableBytes(of: &counter) { read(wakeFD, $0.baseAddress, $0.count) }
            }
            let (commands, stop) = inbox.withLock { inbox in
                defer {
                    inbox.commands.removeAll()
                    inbox.wakePending = false
                }
                return (inbox.commands, inbox.stopRequested)
            }
            for command in commands { command.run(self) }
            if stop { break }
            moreToDispatch = dispatchBatchOfMessages()
            startQueuedCalls()
        }
        finish()
    }

    /// Dispatches up to `dispatchBatch` incoming messages; true when more are waiting.
    private func dispatchBatchOfMessages() -> Bool {
        for _ in 0..<Self.dispatchBatch {
            guard dbus_connection_get_dispatch_status(connection) == DBUS_DISPATCH_DATA_REMAINS else { return false }
            _ = dbus_connection_dispatch(connection)
        }
        return dbus_connection_get_dispatch_status(connection) == DBUS_DISPATCH_DATA_REMAINS
    }

    private func nextTimeoutMilliseconds() -> Int32 {
        let deadlines = timeouts.compactMap(\.deadline) + queuedCalls.prefix(1).map(\.deadline)
        guard let earliest = deadlines.min() else { return -1 }
        let remaining = earliest - ContinuousClock.now
        guard remaining > .zero else { return 0 }
        // Round up: waking a millisecond early would only poll again.
        return Self.milliseconds(remaining) + 1
    }

    private func handleDueTimeouts() {
        let now = ContinuousClock.now
        let due = timeouts.filter { $0.deadline.map { $0 <= now } ?? false }.map(\.timeout)
        for timeout in due {
            guard let index = timeouts.firstIndex(where: { $0.timeout == timeout }) else { continue }
            // Re-arm first: libdbus timeouts repeat until removed or disabled, which `handle` may do.
            timeouts[index].deadline = now + .milliseconds(Int(dbus_timeout_get_interval(timeout)))
            _ = dbus_timeout_handle(timeout)
        }
        expireQueuedCalls(now: now)
    }

    /// Sends on the loop thread; returns the error instead of throwing (the caller decides whether it matters).
    @discardableResult
    func sendNow(_ message: DBusMessage) -> DBusError? {
        guard dbus_connection_get_is_connected(connection) != 0 else {
            return .disconnected("the bus connection is closed")
        }
        let raw: OpaquePointer
        do {
            raw = try message.makeLibDBusMessage()
        } catch {
            return error
        }
        defer { dbus_message_unref(raw) }
        guard dbus_connection_send(connection, raw, nil) != 0 else { return .failed("libdbus is out of memory") }
        return nil
    }

    /// Called from the filter for every incoming message, on the loop thread.
    func handleIncoming(_ raw: OpaquePointer) -> DBusHandlerResult {
        switch dbus_message_get_type(raw) {
        case DBUS_MESSAGE_TYPE_METHOD_CALL:
            handleMethodCall(raw)
            return DBUS_HANDLER_RESULT_HANDLED
        case DBUS_MESSAGE_TYPE_SIGNAL:
            if dbus_message_is_signal(raw, "org.freedesktop.DBus.Local", "Disconnected") != 0 {
                reportDisconnect()
            } else if let signal = try? DBusMessage(libdbus: raw) {
                router.deliver(signal)
            }
            return DBUS_HANDLER_RESULT_NOT_YET_HANDLED
        default:
            return DBUS_HANDLER_RESULT_NOT_YET_HANDLED
        }
    }

    private func handleMethodCall(_ raw: OpaquePointer) {
        let call: DBusMessage
        do {
            call = try DBusMessage(libdbus: raw)
        } catch {
            let headers = DBusMessage.headers(of: raw)
            if !headers.noReplyExpected { sendNow(.error(replyingTo: headers, error)) }
            return
        }
        switch registry.dispatch(call) {
        case .reply(let reply):
            guard !call.noReplyExpected else { return }
            sendReply(reply, to: call)
        case .deferred(let work):
            Task(executorPreference: handlerExecutor) {
                let reply = await work()
                guard !call.noReplyExpected else { return }
                self.enqueue(Command(run: { loop in loop.sendReply(reply, to: call) }, cancel: {}))
            }
        }
    }

    /// Sends a reply; one that cannot be sent (a value libdbus refuses) is replaced by a `Failed` error so the
    /// caller is not left waiting for its timeout.
    private func sendReply(_ reply: DBusMessage, to call: DBusMessage) {
        guard let error = sendNow(reply), reply.type == .methodReturn, error.kind != .disconnected else { return }
        sendNow(.error(replyingTo: call, .failed("reply to \(call.memberDescription) could not be sent: \(error)")))
    }

    private func reportDisconnect() {
        connected.store(false, ordering: .releasing)
        failAllCalls(.disconnected(closing ? "the bus connection was closed" : "the bus connection was lost"))
        let handlers = inbox.withLock { inbox -> [@Sendable () -> Void] in
            guard !inbox.disconnectReported else { return [] }
            inbox.disconnectReported = true
            defer { inbox.disconnectHandlers.removeAll() }
            return inbox.disconnectHandlers
        }
        for handler in handlers { handler() }
    }

    /// Tears down: fails queued commands, closes the connection (libdbus completes its pending calls with
    /// errors, reported as `Disconnected`), then frees everything. Runs on the loop thread, or in `open` when
    /// the thread never started.
    private func finish() {
        let remaining = inbox.withLock { inbox in
            inbox.stopRequested = true
            defer { inbox.commands.removeAll() }
            return inbox.commands
        }
        closing = true
        connected.store(false, ordering: .releasing)
        dbus_connection_close(connection)
        while dbus_connection_dispatch(connection) == DBUS_DISPATCH_DATA_REMAINS {}
        for command in remaining { command.cancel() }
        failAllCalls(.disconnected("the bus connection was closed"))
        dbus_connection_remove_filter(connection, dbusFilter, Unmanaged.passUnretained(self).toOpaque())
        dbus_connection_unref(connection)
        inbox.withLock { inbox in
            inbox.closed = true
            close(wakeFD)
        }
        reportDisconnect()
    }

    static func milliseconds(_ duration: Duration) -> Int32 {
        let (seconds, attoseconds) = duration.components
        let total = seconds.multipliedReportingOverflow(by: 1000)
        guard !total.overflow else { return seconds > 0 ? Int32.max - 1 : 1 }
        let milliseconds = total.partialValue + attoseconds / 1_000_000_000_000_000
        return Int32(clamping: max(1, min(milliseconds, Int64(Int32.max - 1))))
    }
}

typealias DBusResult = Result<DBusMessage, DBusError>
