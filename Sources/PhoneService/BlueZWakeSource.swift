import BlueZ
import DBus
import DBusModel
import Dispatch
import PhoneCore
import Platform
import Retry
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
        /// The board bonded with before (the state directory's `board.json`).
        package var rememberedAddress: String?

        package init(
            adapter: String, boardAddress: String?, address: DBusConnection.Address = .system,
            reconnect: Backoff = Backoff(base: .seconds(1), cap: .seconds(30)), rememberedAddress: String? = nil
        ) {
            self.adapter = adapter
            self.boardAddress = boardAddress
            self.address = address
            self.reconnect = reconnect
            self.rememberedAddress = rememberedAddress
        }
    }

    private struct State: Sendable {
        var deliver: (@Sendable (WakeSourceEvent) -> Void)?
        var received: UInt64 = 0
        var lastState: CentralState?
        /// The board last named over the cable or bonded with: handed to every new central (a bus reconnect
        /// builds one), so what was learnt is not lost with the old one.
        var board: String?
    }

    private let settings: Settings
    private let logger: Logger
    private let runtime: any Runtime
    private let state = Mutex(State())
    private let supervisor: BusSupervisor<WakeCentral>
    private let cable: BoardPairingCable?
    private let bonded: @Sendable (String) -> Void

    /// The central's timers and the reconnection's backoff run on `runtime` (the daemon's executor). With
    /// `cable`, a board without a bond is paired over the USB cable on its own, and `bonded` hears the address of
    /// each board bonded with (to remember it).
    package init(
        settings: Settings, runtime: any Runtime, logger: Logger, cable: BoardPairingCable? = nil,
        bonded: @escaping @Sendable (String) -> Void = { _ in }
    ) {
        self.settings = settings
        self.logger = logger
        self.runtime = runtime
        self.cable = cable
        self.bonded = bonded
        state.withLock { $0.board = settings.rememberedAddress }
        supervisor = BusSupervisor(backoff: settings.reconnect, runtime: runtime, logger: logger)
    }

    /// Asks the board over the cable for its address (it may be another board than the remembered one) and
    /// hands it to the central, which also tries a bond that waits for the cable.
    package func cableArrived() {
        guard let cable else { return }
        runtime.spawn { [weak self] in
            let address = await cable.boardAddress()
            guard let self else { return }
            if let address { state.withLock { $0.board = address } }
            // No central yet (the bus is not connected): the next one starts with the address.
            supervisor.session?.cableArrived(boardAddress: address)
        }
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
        // Disconnects the board politely; bounded by the central's own call timeouts. The runtime's own async
        // executor runs it, so a caller blocked here never waits for a thread of Swift's shared pool.
        let done = DispatchSemaphore(value: 0)
        runtime.spawn { [supervisor] in
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
        case .pairing: .connecting
        case .waitingForBlueZ, .waitingForAdapter, .bondLost, .notBonded, .pairingFailed: .disconnected
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
        let known = state.withLock { $0.board }
        let central = WakeCentral(
            bus: connection,
            configuration: WakeCentral.Configuration(
                adapter: settings.adapter, boardAddress: settings.boardAddress, rememberedAddress: known),
            runtime: runtime, logger: logger, cable: cable)
        try await central.start(
            deliver: { [weak self] bytes in self?.emit(.value(bytes, fullLength: bytes.count)) },
            state: { [weak self] central in self?.centralChanged(central) },
            problem: { [weak self] problem in self?.logger.warning("BLE: \(problem)") },
            bonded: { [weak self] address in
                self?.state.withLock { $0.board = address }
                self?.logger.notice("BLE: bonded with the board \(address) over the USB cable")
                self?.bonded(address)
            })
        return central
    }

    private func busChanged(_ event: BusSupervisor<WakeCentral>.Event) {
        switch event {
        case .connected(_, let uniqueName):
            logger.info("on the system bus as \(uniqueName); looking for the board over BLE")
        case .failed, .lost:
            emit(.state(.disconnected, detail: "no D-Bus system bus (bluetoothd cannot be reached)"))
        }
    }

    private func centralChanged(_ central: CentralState) {
        let changed = state.withLock { state -> Bool in
            defer { state.lastState = central }
            return state.lastState != central
        }
        guard changed else { return }
        // Without the cable the person bonds by hand; with it the central says itself what it tries next.
        let hint = cable == nil ? " (bonding by hand: docs/bluetooth.md)" : ""
        switch central {
        case .bondLost:
            logger.error("BLE: \(central)\(hint)")
        case .notBonded:
            logger.warning("BLE: \(central)\(hint)")
        case .pairingFailed:
            logger.warning("BLE: \(central)")
        default:
            logger.info("BLE: \(central)")
        }
        emit(.state(Self.linkState(central), detail: Self.detail(central)))
    }

    /// What the card says next to the Wake link: nothing when subscribed, the central's words otherwise.
    package static func detail(_ central: CentralState) -> String? {
        if case .subscribed = central { return nil }
        return central.description
    }
}
