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
        var received: UInt64 = 0
        var lastState: CentralState?
    }

    private let settings: Settings
    private let logger: Logger
    private let runtime: any Runtime
    private let state = Mutex(State())
    private let supervisor: BusSupervisor<WakeCentral>

    /// The central's timers and the reconnection's backoff run on `runtime` (the default stands in until
    /// `PhoneDaemon` passes the daemon's own).
    package init(settings: Settings, runtime: any Runtime, logger: Logger) {
        self.settings = settings
        self.logger = logger
        self.runtime = runtime
        supervisor = BusSupervisor(backoff: settings.reconnect, runtime: runtime, logger: logger)
    }

    package func start(deliver: @escaping @Sendable (WakeSourceEvent) -> Void) throws(WakeSourceError) {
        state.withLock { $0.deliver = deliver }
        deliver(.state(.connecting))
        supervisor.start(
            BusSupervisor.Hooks(
                connect: { [address = settings.address] () async throws(DBusError) in
                    try await DBusConnection.connect(to: address, timeout: .seconds(5))
                },
                open: { [weak self] connection async throws(DBusError) in
                    guard let self else { throw DBusError.failed("the Wake source is gone") }
                    return try await startCentral(on: connection)
                },
                close: { central in await central.stop() },
                changed: { [weak self] event in self?.busChanged(event) }))
    }

    package func stop() {
        state.withLock { $0.deliver = nil }
        // Disconnects the board politely; bounded by the central's own call timeouts.
        let done = DispatchSemaphore(value: 0)
        Task {
            await supervisor.stop()
            done.signal()
        }
        _ = done.wait(timeout: .now() + .seconds(6))
    }

    package var facts: WakeSourceFacts {
        state.withLock { state in
            WakeSourceFacts(
                transport: "bluez", endpoint: supervisor.session?.facts.boardAddress ?? settings.boardAddress,
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

    private func startCentral(on connection: any BusConnection) async throws(DBusError) -> WakeCentral {
        let central = WakeCentral(
            bus: connection,
            configuration: WakeCentral.Configuration(adapter: settings.adapter, boardAddress: settings.boardAddress),
            runtime: runtime, logger: logger)
        try await central.start(
            deliver: { [weak self] bytes in self?.emit(.value(bytes, fullLength: bytes.count)) },
            state: { [weak self] central in self?.centralChanged(central) },
            problem: { [weak self] problem in self?.logger.warning("BLE: \(problem)") })
        return central
    }

    private func busChanged(_ event: BusSupervisor<WakeCentral>.Event) {
        switch event {
        case .connected(_, let uniqueName):
            logger.info("on the system bus as \(uniqueName); looking for the board over BLE")
        case .failed, .lost:
            emit(.state(.disconnected))
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
}
