import DBus
import DBusModel
import Synchronization

/// An `org.kde.StatusNotifierWatcher` written from the StatusNotifierItem specification, on a bus of the test's
/// own: it takes `RegisterStatusNotifierItem(service)` (a bus name, or an object path on the caller's
/// connection), lists the items in `RegisteredStatusNotifierItems`, says `IsStatusNotifierHostRegistered` true
/// (it is the host too) and emits `StatusNotifierItemRegistered`. Each registration goes to `registered` as the
/// caller's unique name and the path its item is at.
package final class FakeStatusNotifierWatcher: Sendable {
    package static let name = "org.kde.StatusNotifierWatcher"
    package static let path: DBusObjectPath = "/StatusNotifierWatcher"

    /// One registration: who called and where its item is.
    package struct Registration: Sendable, Equatable {
        package var sender: String
        package var service: String
        package var path: DBusObjectPath
    }

    package let connection: DBusConnection
    private let items = Mutex<[String]>([])

    /// Connects to `address`, exports the watcher and takes its name (`flags`: `allowReplacement` lets a later
    /// watcher take it over while this one lives, as a restarted desktop shell does with `replaceExisting`; without
    /// `doNotQueue` it waits in the bus's queue while another holds the name).
    package static func start(
        on address: String, registered: Mailbox<Registration>, flags: DBusRequestNameFlags = [.doNotQueue]
    ) async throws
        -> FakeStatusNotifierWatcher
    {
        let connection = try await DBusConnection.connect(to: .address(address), timeout: .seconds(5))
        let watcher = FakeStatusNotifierWatcher(connection: connection)
        try connection.export(
            DBusExportedObject(interfaces: [
                DBusInterface(
                    name,
                    methods: [
                        DBusMethod("RegisterStatusNotifierItem", inputs: "s") {
                            [weak watcher] message throws(DBusError) in
                            let service = message.body[0].stringValue ?? ""
                            let sender = message.sender ?? ""
                            // A path names an item on the caller's connection; a name, the standard path there.
                            let registration =
                                service.hasPrefix("/")
                                ? Registration(sender: sender, service: sender, path: DBusObjectPath(service))
                                : Registration(sender: sender, service: service, path: "/StatusNotifierItem")
                            watcher?.items.withLock { $0.append(registration.service + registration.path.rawValue) }
                            try watcher?.connection.emitSignal(
                                path: path, interface: name, member: "StatusNotifierItemRegistered",
                                [.string(registration.service)])
                            registered.put(registration)
                            return []
                        },
                        DBusMethod("RegisterStatusNotifierHost", inputs: "s") { _ throws(DBusError) in [] },
                    ],
                    properties: [
                        DBusProperty(
                            "RegisteredStatusNotifierItems", type: "as",
                            get: { [weak watcher] in .strings(watcher?.items.withLock { $0 } ?? []) }),
                        .constant("IsStatusNotifierHostRegistered", .boolean(true)),
                        .constant("ProtocolVersion", .int32(0)),
                    ],
                    signals: [
                        DBusSignalDescription("StatusNotifierItemRegistered", arguments: "s"),
                        DBusSignalDescription("StatusNotifierItemUnregistered", arguments: "s"),
                        DBusSignalDescription("StatusNotifierHostRegistered"),
                    ])
            ]), at: path)
        let reply = try await connection.requestName(name, flags: flags)
        guard reply == .primaryOwner || (reply == .inQueue && !flags.contains(.doNotQueue)) else {
            throw DBusError.failed("the watcher's name was not given: \(reply)")
        }
        return watcher
    }

    private init(connection: DBusConnection) {
        self.connection = connection
    }

    /// What a host reads: the items registered with this watcher, as `service/path`.
    package var registeredItems: [String] { items.withLock { $0 } }

    /// Leaves the bus (a watcher that goes away, or crashes).
    package func stop() { connection.close() }
}
