internal import CDBus
import DBusModel

/// Method calls on the loop thread: at most `maximumInFlight` wait for a reply at once, the rest queue in order.
///
/// dbus-daemon limits the replies a connection may be owed (`max_replies_per_connection`, 128 by default on the
/// system bus) and answers any further call with `LimitsExceeded`. Queuing here turns a burst of calls into a
/// delay instead of failures. A queued call's timeout runs from the moment it was made, not from when it leaves
/// the queue.
extension DBusEventLoop {
    static let maximumInFlight = 64

    struct QueuedCall {
        let message: DBusMessage
        let timeoutMilliseconds: Int32
        let deadline: ContinuousClock.Instant
        let completion: @Sendable (DBusResult) -> Void
    }

    func startCall(_ message: DBusMessage, timeout: Duration, completion: @escaping @Sendable (DBusResult) -> Void) {
        let call = QueuedCall(
            message: message, timeoutMilliseconds: Self.milliseconds(timeout), deadline: .now + timeout,
            completion: completion)
        if outstanding.count < Self.maximumInFlight && queuedCalls.isEmpty {
            issue(call)
        } else {
            queuedCalls.append(call)
        }
    }

    /// Issues queued calls while there is room (after replies came in).
    func startQueuedCalls() {
        while outstanding.count < Self.maximumInFlight, !queuedCalls.isEmpty {
            issue(queuedCalls.removeFirst())
        }
    }

    /// Fails queued calls whose timeout passed before they could be sent.
    func expireQueuedCalls(now: ContinuousClock.Instant) {
        guard queuedCalls.contains(where: { $0.deadline <= now }) else { return }
        let expired = queuedCalls.filter { $0.deadline <= now }
        queuedCalls.removeAll { $0.deadline <= now }
        for call in expired {
            call.completion(
                .failure(
                    .timeout(
                        "no reply to \(call.message.memberDescription) within \(call.timeoutMilliseconds) ms "
                            + "(still queued behind \(Self.maximumInFlight) calls in flight)")))
        }
    }

    /// Fails every call in flight or queued (the connection is gone).
    func failAllCalls(_ error: DBusError) {
        let queued = queuedCalls
        queuedCalls.removeAll()
        for call in queued { call.completion(.failure(error)) }
        for reply in Array(outstanding.values) { reply.finish(.failure(error)) }
    }

    private func issue(_ call: QueuedCall) {
        guard isConnected, dbus_connection_get_is_connected(connection) != 0 else {
            call.completion(.failure(.disconnected("the bus connection is closed")))
            return
        }
        let remaining = call.deadline - .now
        guard remaining > .zero else {
            call.completion(
                .failure(
                    .timeout(
                        "no reply to \(call.message.memberDescription) within "
                            + "\(call.timeoutMilliseconds) ms (still queued)")))
            return
        }
        let raw: OpaquePointer
        do {
            raw = try call.message.makeLibDBusMessage()
        } catch {
            call.completion(.failure(error))
            return
        }
        defer { dbus_message_unref(raw) }
        var pending: OpaquePointer?
        guard dbus_connection_send_with_reply(connection, raw, &pending, Self.milliseconds(remaining)) != 0 else {
            call.completion(.failure(.failed("libdbus is out of memory")))
            return
        }
        guard let pending else {
            call.completion(.failure(.disconnected("the bus connection is closed")))
            return
        }
        let reply = DBusPendingReply(
            loop: self, what: call.message.memberDescription, timeoutMilliseconds: call.timeoutMilliseconds,
            completion: call.completion)
        outstanding[ObjectIdentifier(reply)] = reply
        reply.attach(to: pending)
    }
}
