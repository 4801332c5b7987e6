internal import CDBus
import DBusModel

// libdbus's callbacks into the event loop. They capture nothing (C function pointers): the loop arrives as the
// context pointer, unretained (the loop outlives its connection). libdbus calls them on the loop thread, or
// during setup before that thread starts.

private func loop(_ context: UnsafeMutableRawPointer?) -> DBusEventLoop? {
    context.map { Unmanaged<DBusEventLoop>.fromOpaque($0).takeUnretainedValue() }
}

let dbusAddWatch: DBusAddWatchFunction = { watch, context in
    guard let watch, let loop = loop(context) else { return 0 }
    loop.watches.append(watch)
    return 1
}

let dbusRemoveWatch: DBusRemoveWatchFunction = { watch, context in
    guard let watch, let loop = loop(context) else { return }
    loop.watches.removeAll { $0 == watch }
}

/// The loop re-reads `dbus_watch_get_enabled` before every poll: nothing to record.
let dbusToggleWatch: DBusWatchToggledFunction = { _, _ in }

let dbusAddTimeout: DBusAddTimeoutFunction = { timeout, context in
    guard let timeout, let loop = loop(context) else { return 0 }
    loop.timeouts.append(DBusEventLoop.TimeoutEntry(timeout: timeout, deadline: deadline(of: timeout)))
    return 1
}

let dbusRemoveTimeout: DBusRemoveTimeoutFunction = { timeout, context in
    guard let timeout, let loop = loop(context) else { return }
    loop.timeouts.removeAll { $0.timeout == timeout }
}

let dbusToggleTimeout: DBusTimeoutToggledFunction = { timeout, context in
    guard let timeout, let loop = loop(context),
        let index = loop.timeouts.firstIndex(where: { $0.timeout == timeout })
    else { return }
    loop.timeouts[index].deadline = deadline(of: timeout)
}

private func deadline(of timeout: OpaquePointer) -> ContinuousClock.Instant? {
    guard dbus_timeout_get_enabled(timeout) != 0 else { return nil }
    return .now + .milliseconds(Int(dbus_timeout_get_interval(timeout)))
}

let dbusFilter: DBusHandleMessageFunction = { _, message, context in
    guard let message, let loop = loop(context) else { return DBUS_HANDLER_RESULT_NOT_YET_HANDLED }
    return loop.handleIncoming(message)
}

let dbusPendingNotify: DBusPendingCallNotifyFunction = { pending, context in
    guard let pending, let context else { return }
    Unmanaged<DBusPendingReply>.fromOpaque(context).takeUnretainedValue().complete(from: pending)
}

/// libdbus frees the pending call: normally after the notify, but on a lost connection it drops pending calls
/// without notifying (it queues their errors as ordinary messages), so the call is failed here.
let dbusPendingRelease: DBusFreeFunction = { context in
    guard let context else { return }
    Unmanaged<DBusPendingReply>.fromOpaque(context).takeRetainedValue().abandon()
}
