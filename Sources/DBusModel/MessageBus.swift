/// The seam between the BlueZ code and D-Bus: `DBusConnection` on a real bus, `FakeMessageBus` (TestSupport) in tests.
///
/// Everything the BlueZ peripheral and central need is here or in the extension built on it (`MessageBus+Calls`):
/// bounded method calls, exported objects (with Properties, ObjectManager and Introspectable built in), signals
/// out and in, and name-owner watching.
package protocol MessageBus: Sendable {
    /// This connection's unique name on the bus (`:1.42`).
    var uniqueName: String { get }

    /// Sends a method call and waits at most `timeout` for the answer. Returns the method return; an error
    /// answer is thrown as its `DBusError` (a timeout as `NoReply`, a lost connection as `Disconnected`).
    func call(_ message: DBusMessage, timeout: Duration) async throws(DBusError) -> DBusMessage

    /// Sends a signal (fire and forget). Throws when the message is invalid or the connection is closed.
    func emit(_ signal: DBusMessage) throws(DBusError)

    /// Exports `object` at `path` until `unexport`; announces it with `InterfacesAdded` when an object manager
    /// is exported above it.
    func export(_ object: any DBusObject, at path: DBusObjectPath) throws(DBusError)

    /// Removes the object at `path`, if any (with `InterfacesRemoved` below an object manager).
    func unexport(_ path: DBusObjectPath)

    /// Adds the rule on the bus and calls `handler` for every matching message until `removeMatch`.
    /// Handlers run on the bus thread, one at a time, in arrival order: they must return quickly and never
    /// block (yield to an `AsyncStream`, or start a task).
    func addMatch(
        _ rule: DBusMatchRule, handler: @escaping @Sendable (DBusMessage) -> Void
    ) async throws(DBusError) -> DBusMatchToken

    /// Removes the handler and its rule on the bus (errors are ignored: the handler is gone either way).
    func removeMatch(_ token: DBusMatchToken) async
}
