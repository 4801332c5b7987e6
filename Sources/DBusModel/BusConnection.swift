/// A `MessageBus` that is a connection of its own, which someone keeps open (`BlueZ.BusSupervisor`): it says
/// when it is lost and can be closed. `DBusConnection` on a real bus, `FakeMessageBus` in tests.
package protocol BusConnection: MessageBus {
    /// Calls `handler` once when the connection is lost or closed (at once if it already is).
    func onDisconnect(_ handler: @escaping @Sendable () -> Void)

    /// Closes the connection; pending calls fail with `Disconnected`.
    func close()
}
