import BlueZ
import DBus
import DBusModel
import DesktopNotifications
import Platform
import Retry

/// The phone's one supervised connection to the session bus, shared by all its desktop surfaces, so a
/// surface costs no connection and no thread of its own. `BusSupervisor` connects and, when the bus goes
/// (the session's dbus-daemon restarted), reconnects after `Backoff` delays; each surface then attaches
/// to the new connection. The surfaces attach concurrently and independently: a slow or missing server of
/// one never delays or stops another.
package final class SessionBus: Sendable {
    private let supervisor: BusSupervisor<any BusConnection>
    private let logger: Logger

    package init(
        runtime: any Runtime, logger: Logger, reconnect: Backoff = Backoff(base: .seconds(1), cap: .seconds(30))
    ) {
        self.logger = logger
        supervisor = BusSupervisor(backoff: reconnect, runtime: runtime, logger: logger, busName: "session bus")
    }

    /// Finds the session bus (`DBUS_SESSION_BUS_ADDRESS`, else `$XDG_RUNTIME_DIR/bus`) and keeps a connection
    /// to it for the client's whole life, with `surfaces` on it: buttons reach only a live listener. Without a
    /// session bus nothing starts (no thread, no timer).
    package func start(environment: [String: String], surfaces: [any SessionBusSurface]) {
        let location = SessionBusLocation.find(environment: environment, socketExists: POSIXFileSystem().fileExists)
        guard let address = location.address else {
            logger.info("no session bus (\(location)): the card is on the terminal and in --json only")
            return
        }
        supervisor.start(
            BusSupervisor.Hooks(
                connect: { () async throws(DBusError) -> any BusConnection in
                    try await DBusConnection.connect(to: .address(address), timeout: .seconds(2))
                },
                open: { bus async throws(DBusError) -> any BusConnection in
                    await withTaskGroup(of: Void.self) { group in
                        for surface in surfaces { group.addTask { await surface.attach(to: bus) } }
                    }
                    return bus
                },
                close: { bus in
                    await withTaskGroup(of: Void.self) { group in
                        for surface in surfaces { group.addTask { await surface.detach(from: bus) } }
                    }
                },
                changed: { event in
                    switch event {
                    case .connected: break
                    case .failed, .lost: for surface in surfaces { surface.busUnavailable() }
                    }
                }))
    }

    /// Detaches the surfaces and closes the connection (tests; the daemon's exit closes it anyway).
    package func stop() async {
        await supervisor.stop()
    }
}
