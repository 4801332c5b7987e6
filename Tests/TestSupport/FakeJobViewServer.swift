import DBus
import DBusModel
import Synchronization

/// An `org.kde.JobViewServer` written from kjobwidgets' interface files (`org.kde.JobViewServerV2`,
/// `org.kde.JobViewV2`), on a bus of the test's own: `requestView(desktopEntry, capabilities, hints)` exports
/// a view at `/JobViewServer/JobView_N` (N from 1 for each server, as a restarted one counts again) and answers
/// its path; every call on a view goes to `calls` (its path, member and arguments), `terminate` then removes
/// the view, as the real servers do, so a later call gets `UnknownObject`. `cancel(_:)` emits a view's
/// `cancelRequested`; `drop(_:)` removes a view as a server that discarded the job.
package final class FakeJobViewServer: Sendable {
    package static let name = "org.kde.JobViewServer"
    package static let path: DBusObjectPath = "/JobViewServer"
    package static let interface = "org.kde.JobViewServerV2"
    package static let viewInterface = "org.kde.JobViewV2"

    package struct Request: Sendable, Equatable {
        package var sender: String
        package var desktopEntry: String
        package var capabilities: Int32
        package var hints: [String: DBusValue]
        package var path: DBusObjectPath
    }

    package struct Call: Sendable, Equatable, CustomStringConvertible {
        package var path: DBusObjectPath
        package var member: String
        package var body: [DBusValue]

        package init(path: DBusObjectPath, member: String, body: [DBusValue]) {
            self.path = path
            self.member = member
            self.body = body
        }

        package var description: String { "\(path.rawValue) \(member)\(body)" }
    }

    package let connection: DBusConnection
    private let nextView = Mutex<Int>(1)

    /// Connects to `address`, exports the server and takes its name.
    package static func start(
        on address: String, requests: Mailbox<Request>, calls: Mailbox<Call>
    ) async throws -> FakeJobViewServer {
        let connection = try await DBusConnection.connect(to: .address(address), timeout: .seconds(5))
        let server = FakeJobViewServer(connection: connection)
        try connection.export(
            DBusExportedObject(interfaces: [
                DBusInterface(
                    interface,
                    methods: [
                        DBusMethod("requestView", inputs: "sia{sv}", outputs: "o") {
                            [weak server] message throws(DBusError) in
                            guard let server else { throw .failed("the server is gone") }
                            let number = server.nextView.withLock { number in
                                defer { number += 1 }
                                return number
                            }
                            let view = DBusObjectPath("/JobViewServer/JobView_\(number)")
                            try server.connection.export(server.view(at: view, calls: calls), at: view)
                            requests.put(
                                Request(
                                    sender: message.sender ?? "", desktopEntry: message.body[0].stringValue ?? "",
                                    capabilities: message.body[1].int32Value ?? -1,
                                    hints: message.body[2].vardict ?? [:],
                                    path: view))
                            return [.objectPath(view)]
                        }
                    ])
            ]), at: path)
        _ = try await connection.requestName(name)
        return server
    }

    private init(connection: DBusConnection) {
        self.connection = connection
    }

    /// One view: each method of `org.kde.JobViewV2` records its call.
    private func view(at path: DBusObjectPath, calls: Mailbox<Call>) -> DBusExportedObject {
        func recording(_ member: String, _ inputs: DBusSignature, outputs: DBusSignature = .empty) -> DBusMethod {
            DBusMethod(member, inputs: inputs, outputs: outputs) { [weak self] message throws(DBusError) in
                calls.put(Call(path: path, member: member, body: message.body))
                if member == "terminate" { self?.connection.unexport(path) }
                // setDescriptionField answers whether it took the field (Plasma's always says false).
                return outputs == .empty ? [] : [.boolean(false)]
            }
        }
        return DBusExportedObject(interfaces: [
            DBusInterface(
                Self.viewInterface,
                methods: [
                    recording("terminate", "s"), recording("setSuspended", "b"), recording("setTotalAmount", "ts"),
                    recording("setProcessedAmount", "ts"), recording("setPercent", "u"), recording("setSpeed", "t"),
                    recording("setInfoMessage", "s"), recording("setDescriptionField", "uss", outputs: "b"),
                    recording("clearDescriptionField", "u"), recording("setDestUrl", "v"), recording("setError", "u"),
                ],
                signals: [
                    DBusSignalDescription("suspendRequested"), DBusSignalDescription("resumeRequested"),
                    DBusSignalDescription("cancelRequested"),
                ])
        ])
    }

    /// The person pressed Cancel on the view at `path`.
    package func cancel(_ path: DBusObjectPath) throws {
        try connection.emitSignal(path: path, interface: Self.viewInterface, member: "cancelRequested")
    }

    /// The server discards the view at `path` (as after a Cancel the application did not answer in time).
    package func drop(_ path: DBusObjectPath) {
        connection.unexport(path)
    }

    /// Leaves the bus (a server that goes away, or crashes).
    package func stop() { connection.close() }
}
