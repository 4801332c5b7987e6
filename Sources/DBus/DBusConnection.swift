import DBusModel
import Glibc

/// A connection to a D-Bus message bus over libdbus-1, serviced by one dedicated thread (see `DBusEventLoop`).
///
/// Every method call is bounded by a timeout. Handlers (exported methods, signal handlers) run on the bus
/// thread and must not block. Call `close()` when done; dropping the last reference closes it too.
package final class DBusConnection: BusConnection {
    /// Which bus to connect to.
    package enum Address: Sendable, Hashable {
        /// `DBUS_SYSTEM_BUS_ADDRESS`, else `unix:path=/var/run/dbus/system_bus_socket` (where bluetoothd is).
        case system
        /// `DBUS_SESSION_BUS_ADDRESS`.
        case session
        /// A libdbus address such as `unix:path=/tmp/test-bus` (a private bus in tests).
        case address(String)
    }

    package let uniqueName: String
    private let loop: DBusEventLoop

    private init(loop: DBusEventLoop, uniqueName: String) {
        self.loop = loop
        self.uniqueName = uniqueName
    }

    deinit {
        loop.shutdown()
    }

    /// Connects, authenticates and registers with the bus (`Hello`), all within `timeout`.
    package static func connect(
        to address: Address, timeout: Duration = DBusMessage.defaultCallTimeout
    ) async throws(DBusModel.DBusError) -> DBusConnection {
        let loop = try DBusEventLoop.open(address: try resolve(address))
        let hello = DBusMessage.methodCall(
            destination: DBusStandardInterfaces.busName, path: DBusStandardInterfaces.busPath,
            interface: DBusStandardInterfaces.busInterface, member: "Hello")
        do throws(DBusModel.DBusError) {
            let reply = try await loop.call(hello, timeout: timeout)
            if let error = reply.error { throw error }
            guard reply.signature == "s", let name = reply.body[0].stringValue else {
                throw DBusError.failed("the bus answered Hello with '\(reply.signature)'")
            }
            return DBusConnection(loop: loop, uniqueName: name)
        } catch {
            loop.shutdown()
            throw error
        }
    }

    private static func resolve(_ address: Address) throws(DBusModel.DBusError) -> String {
        switch address {
        case .system:
            return environment("DBUS_SYSTEM_BUS_ADDRESS") ?? "unix:path=/var/run/dbus/system_bus_socket"
        case .session:
            guard let value = environment("DBUS_SESSION_BUS_ADDRESS") else {
                throw DBusError(name: DBusError.Names.noServer, message: "DBUS_SESSION_BUS_ADDRESS is not set")
            }
            return value
        case .address(let value):
            return value
        }
    }

    private static func environment(_ name: String) -> String? {
        guard let value = getenv(name) else { return nil }
        let text = String(cString: value)
        return text.isEmpty ? nil : text
    }

    /// False once the bus has gone away or `close()` was called.
    package var isConnected: Bool { loop.isConnected }

    /// Calls `handler` once when the connection is lost or closed (at once if it already is).
    package func onDisconnect(_ handler: @escaping @Sendable () -> Void) {
        loop.onDisconnect(handler)
    }

    /// Closes the connection: pending calls fail with `Disconnected`, the bus thread ends (this waits for it,
    /// except when called from a handler on that thread).
    package func close() {
        loop.shutdown()
    }

    /// Sends any message (a signal, or a reply built by hand) without waiting.
    package func send(_ message: DBusMessage) throws(DBusModel.DBusError) {
        try loop.send(message)
    }

    // MARK: MessageBus

    package func call(_ message: DBusMessage, timeout: Duration) async throws(DBusModel.DBusError) -> DBusMessage {
        let reply = try await loop.call(message, timeout: timeout)
        if let error = reply.error { throw error }
        return reply
    }

    package func emit(_ signal: DBusMessage) throws(DBusModel.DBusError) {
        guard signal.type == .signal else { throw .invalidArgs("emit needs a signal, got a \(signal.type)") }
        try loop.send(signal)
    }

    package func export(_ object: any DBusObject, at path: DBusObjectPath) throws(DBusModel.DBusError) {
        for announcement in try loop.registry.export(object, at: path) {
            try? loop.send(announcement)
        }
    }

    package func unexport(_ path: DBusObjectPath) {
        for announcement in loop.registry.unexport(path) {
            try? loop.send(announcement)
        }
    }

    package func addMatch(
        _ rule: DBusMatchRule, handler: @escaping @Sendable (DBusMessage) -> Void
    ) async throws(DBusModel.DBusError) -> DBusMatchToken {
        try rule.validate()
        // The handler is in place before the bus starts routing, so no matching signal is missed.
        let token = loop.router.add(rule, handler: handler)
        do {
            _ = try await busCall("AddMatch", rule)
        } catch {
            _ = loop.router.remove(token)
            throw error
        }
        return token
    }

    package func removeMatch(_ token: DBusMatchToken) async {
        guard let rule = loop.router.remove(token), isConnected else { return }
        _ = try? await busCall("RemoveMatch", rule)
    }

    private func busCall(_ member: String, _ rule: DBusMatchRule) async throws(DBusModel.DBusError) -> [DBusValue] {
        try await call(
            destination: DBusStandardInterfaces.busName, path: DBusStandardInterfaces.busPath,
            interface: DBusStandardInterfaces.busInterface, member: member, [.string(rule.description)],
            expecting: "")
    }

    /// The paths of the objects exported on this connection.
    package var exportedPaths: [DBusObjectPath] { loop.registry.exportedPaths }
}
