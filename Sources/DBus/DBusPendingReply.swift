internal import CDBus
import DBusModel

/// The Swift side of one libdbus pending call: completes exactly once, on the loop thread, with the reply, a
/// timeout, or a disconnection.
///
/// `@unchecked Sendable`: created, completed and released on the loop thread only.
final class DBusPendingReply: @unchecked Sendable {
    let what: String
    private let loop: DBusEventLoop
    private let timeoutMilliseconds: Int32
    private let completion: @Sendable (DBusResult) -> Void
    private var done = false

    init(
        loop: DBusEventLoop, what: String, timeoutMilliseconds: Int32,
        completion: @escaping @Sendable (DBusResult) -> Void
    ) {
        self.loop = loop
        self.what = what
        self.timeoutMilliseconds = timeoutMilliseconds
        self.completion = completion
    }

    /// Installs the notify and gives up our reference: the connection keeps the pending call until it completes,
    /// and its release frees this object. The reply cannot arrive before this returns (same thread).
    func attach(to pending: OpaquePointer) {
        let context = Unmanaged.passRetained(self).toOpaque()
        if dbus_pending_call_set_notify(pending, dbusPendingNotify, context, dbusPendingRelease) == 0 {
            Unmanaged<DBusPendingReply>.fromOpaque(context).release()
            dbus_pending_call_cancel(pending)
            finish(.failure(.failed("libdbus is out of memory")))
        } else if dbus_pending_call_get_completed(pending) != 0 {
            complete(from: pending)
        }
        dbus_pending_call_unref(pending)
    }

    func complete(from pending: OpaquePointer) {
        guard !done else { return }
        guard let raw = dbus_pending_call_steal_reply(pending) else {
            finish(.failure(.timeout("no reply to \(what)")))
            return
        }
        defer { dbus_message_unref(raw) }
        do {
            finish(.success(try translated(DBusMessage(libdbus: raw))))
        } catch {
            finish(.failure(error))
        }
    }

    /// libdbus let go of the call without completing it, which it does only when the connection is gone.
    func abandon() {
        guard !done else { return }
        finish(.failure(.disconnected("the bus connection was lost before \(what) was answered")))
    }

    func finish(_ result: DBusResult) {
        guard !done else { return }
        done = true
        loop.outstanding[ObjectIdentifier(self)] = nil
        completion(result)
    }

    /// libdbus answers a timed-out or disconnected call with a `NoReply` error of its own (no sender): say
    /// which call it was and for how long it waited, or that the connection went away.
    private func translated(_ reply: DBusMessage) -> DBusMessage {
        guard reply.type == .error, reply.errorName == DBusError.Names.noReply, reply.sender == nil else {
            return reply
        }
        var rewritten = reply
        if loop.closing || !loop.isConnected {
            rewritten.errorName = DBusError.Names.disconnected
            rewritten.body = [.string("the bus connection was closed before \(what) was answered")]
        } else {
            rewritten.body = [.string("no reply to \(what) within \(timeoutMilliseconds) ms")]
        }
        return rewritten
    }
}
