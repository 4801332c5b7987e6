import BlueZ
import DBus
import DBusModel
import Dispatch
import PhoneCore
import Platform
import Synchronization

/// The phone's Wakes over BLE: BlueZ's `WakeCentral` on the D-Bus system bus, behind the
/// `WakeSource` seam. The central finds the board by the Wake service UUID (or `[wake] address`),
/// subscribes once per link and rebuilds after bluetoothd restarts; this source keeps the bus
/// connection itself alive (reconnecting with backoff when dbus-daemon goes away).
package final class BlueZWakeSource: WakeSource {
    package struct Settings: Sendable {
        package var adapter: String
        package var boardAddress: String?
        package var address: DBusConnection.Address
        package var reconnect: Backoff

        package init(
            adapter: String, boardAddress: String?, address: DBusConnection.Address = .system,
            reconnect: Backoff = Backoff(base: .seconds(1), cap: .seconds(30))
        ) {
            self.adapter = adapter
            self.boardAddress = boardAddress
            self.address = address
            self.reconnect = reconnect
        }
    }

    private struct State: Sendable {
        var deliver: (@Sendable (WakeSourceEvent) -> Void)?
        var connection: DBusConnection?
        var central: WakeCentral?
        var stopped = false
        var failures = 0
        var received: UInt64 = 0
        var lastState: CentralState?
    }

    private let settings: Settings
    private let logger: Logger
    private let state = Mutex(State())

    package init(settings: Settings, logger: Logger) {
        self.settings = settings
        self.logger = logger
    }

    package func start(deliver: @escaping @Sendable (WakeSourceEvent) -> Void) throws(WakeSourceError) {
        state.withLock { $0.deliver = deliver }
        deliver(.state(.connecting))
        Task { await self.connect() }
    }

    package func stop() {
        let (central, connection) = state.withLock { state in
            state.stopped = true
            state.deliver = nil
            return (state.central, state.connection)
        }
        guard let central else {
            connection?.close()
            return
        }
        // Disconnects the board politely; bounded by the central's own call timeouts.
        let done = DispatchSemaphore(value: 0)
        Task {
            await central.stop()
            connection?.close()
            done.signal()
        }
        _ = done.wait(timeout: .now() + .seconds(6))
    }

    package var facts: WakeSourceFacts {
        state.withLock { state in
            WakeSourceFacts(
                transport: "bluez", endpoint: state.central?.facts.boardAddress ?? settings.boardAddress,
                received: state.received)
        }
    }

    /// How the central's states read on the card: only a subscribed link is "connected".
    package static func linkState(_ central: CentralState) -> LinkState.Wake {
        switch central {
        case .subscribed: .connected
        case .searching, .connecting, .subscribing, .reconnecting: .connecting
        case .waitingForBlueZ, .waitingForAdapter, .bondLost, .notBonded: .disconnected
        }
    }

    private func emit(_ event: WakeSourceEvent) {
        let deliver = state.withLock { state -> (@Sendable (WakeSourceEvent) -> Void)? in
            if case .value = event { state.received += 1 }
            return state.deliver
        }
        deliver?(event)
    }

    private func connect() async {
        while !state.withLock({ $0.stopped }) {
            do throws(DBusError) {
                let connection = try await DBusConnection.connect(to: settings.address, timeout: .seconds(5))
                let central = WakeCentral(
                    bus: connection,
                    configuration: WakeCentral.Configuration(
                        adapter: settings.adapter, boardAddress: settings.boardAddress),
                    logger: logger)
                try await central.start(
                    deliver: { [weak self] bytes in self?.emit(.value(bytes, fullLength: bytes.count)) },
                    state: { [weak self] central in self?.centralChanged(central) },
                    problem: { [weak self] problem in self?.logger.warning("BLE: \(problem)") })
                let stopped = state.withLock { state in
                    state.connection = connection
                    state.central = central
                    state.failures = 0
                    return state.stopped
                }
                if stopped {
                    await central.stop()
                    connection.close()
                    return
                }
                logger.info("on the system bus as \(connection.uniqueName); looking for the board over BLE")
                connection.onDisconnect { [weak self] in self?.connectionLost() }
                return
            } catch {
                let delay = state.withLock { state in
                    state.failures += 1
                    return settings.reconnect.delay(afterFailures: state.failures)
                }
                emit(.state(.disconnected))
                logger.warning("system bus: \(error); retrying in \(delay)")
                try? await Task.sleep(for: delay)
            }
        }
    }

    private func centralChanged(_ central: CentralState) {
        let changed = state.withLock { state -> Bool in
            defer { state.lastState = central }
            return state.lastState != central
        }
        guard changed else { return }
        if case .bondLost = central {
            logger.error(
                "\(central): on this host run 'bluetoothctl remove <board address>' and pair again "
                    + "while the board's pairing window is open (docs/bluetooth.md)")
        } else if case .notBonded = central {
            logger.warning(
                "BLE: \(central) (POST /api/bluetooth/pairing/start on the board, then pair from this host: "
                    + "docs/bluetooth.md)")
        } else {
            logger.info("BLE: \(central)")
        }
        emit(.state(Self.linkState(central)))
    }

    private func connectionLost() {
        let stopped = state.withLock { state in
            state.central = nil
            state.connection = nil
            return state.stopped
        }
        guard !stopped else { return }
        emit(.state(.disconnected))
        logger.warning("lost the system bus; reconnecting")
        Task { await self.connect() }
    }
}
