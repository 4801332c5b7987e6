import BlueZ
import BoardAPI
import DBus
import DBusModel
import Platform
import Retry
import Synchronization
import WakeProtocol
import WireFormat

/// The BLE Wake transport: a `GattPeripheral` on the D-Bus system bus, behind the `WakeSink` seam.
///
/// Connecting is asynchronous and never blocks the daemon's start: until the bus answers, Wakes only update
/// the characteristic's value (and count as not delivered) and the facts say why. A lost bus connection
/// (dbus-daemon restarted) is reconnected with backoff and everything is registered again.
package final class BlueZWakeSink: WakeSink {
    package struct Settings: Sendable {
        package var adapter: String
        package var characteristicFlags: [String]
        package var address: DBusConnection.Address
        package var reconnect: Backoff

        package init(
            adapter: String, characteristicFlags: [String], address: DBusConnection.Address = .system,
            reconnect: Backoff = Backoff(base: .seconds(1), cap: .seconds(30))
        ) {
            self.adapter = adapter
            self.characteristicFlags = characteristicFlags
            self.address = address
            self.reconnect = reconnect
        }
    }

    private struct State: Sendable {
        var value: [UInt8]
        var busProblem: String? = "connecting to the D-Bus system bus"
    }

    private let settings: Settings
    private let logger: Logger
    private let runtime: any Runtime
    private let state: Mutex<State>
    private let supervisor: BusSupervisor<GattPeripheral>
    /// Whom to tell when the facts may have changed (`observeFacts`).
    private let observer = Mutex<(@Sendable () -> Void)?>(nil)

    /// Checks the settings and starts connecting in the background. The peripheral's timers and the
    /// reconnection's backoff run on `runtime`.
    package init(
        settings: Settings, initialValue: WakeEnvelope, runtime: any Runtime, logger: Logger
    ) throws(WakeCharacteristicFlagsError) {
        _ = try WakeCharacteristicFlags.validate(settings.characteristicFlags)
        self.settings = settings
        self.logger = logger
        self.runtime = runtime
        state = Mutex(State(value: initialValue.bytes))
        supervisor = BusSupervisor(backoff: settings.reconnect, runtime: runtime, logger: logger)
        supervisor.start(
            BusSupervisor.Hooks(
                connect: { [address = settings.address] () async throws(DBusError) in
                    try await DBusConnection.connect(to: address, timeout: .seconds(5))
                },
                open: { [weak self] connection async throws(DBusError) in
                    guard let self else { throw DBusError.failed("the Wake sink is gone") }
                    return try await startPeripheral(on: connection)
                },
                close: { peripheral in await peripheral.stop() },
                changed: { [weak self] event in self?.busChanged(event) }))
    }

    package var transportName: String { "bluez" }

    package func observeFacts(_ changed: @escaping @Sendable () -> Void) {
        observer.withLock { $0 = changed }
    }

    private func factsChanged() {
        observer.withLock { $0 }?()
    }

    package func send(_ envelope: WakeEnvelope) -> Result<Void, WakeSinkError> {
        let problem = state.withLock { state in
            state.value = envelope.bytes
            return state.busProblem
        }
        guard let peripheral = supervisor.session else {
            return .failure(WakeSinkError(problem ?? "not connected to the system bus"))
        }
        return peripheral.send(envelope.bytes).mapError { WakeSinkError($0.message.isEmpty ? $0.name : $0.message) }
    }

    package func bluetoothFacts() -> BluetoothFacts {
        let problem = state.withLock { $0.busProblem }
        guard let peripheral = supervisor.session else {
            return BluetoothFacts(adapter: settings.adapter, problem: problem)
        }
        let facts = peripheral.facts
        return BluetoothFacts(
            adapter: settings.adapter, adapterPresent: facts.adapterPresent, powered: facts.powered,
            bluezRunning: facts.bluezRunning, gattRegistered: facts.gattRegistered, advertising: facts.advertising,
            wakeSubscriber: facts.wakeSubscriber, address: facts.address,
            pairingClosesInSeconds: facts.pairingClosesIn.map { Int(($0 + .milliseconds(999)).components.seconds) },
            problem: facts.problem)
    }

    /// Asks the peripheral, which decides on the executor (this waits for it). Without a peripheral there is
    /// nothing that could say when a window closes, so it fails rather than promising one for later; the
    /// router only asks once bluetoothd is known to run.
    package func openPairingWindow(for duration: Duration, forgetting phone: String?) -> PairingOutcome {
        openPairingWindow(for: duration, forgetting: phone, unlessBonded: false)
    }

    package func openPairingWindow(
        for duration: Duration, forgetting phone: String?, unlessBonded: Bool
    ) -> PairingOutcome {
        let problem = state.withLock { $0.busProblem }
        guard let peripheral = supervisor.session else { return .failed(problem ?? "not connected to the system bus") }
        return peripheral.openPairingWindow(for: duration, forgetting: phone, unlessBonded: unlessBonded)
            ?? .failed("the Bluetooth peripheral is stopping")
    }

    /// Stops the peripheral and closes the bus connection (tests; the daemon simply exits).
    package func stop() async {
        await supervisor.stop()
    }

    /// The peripheral's facts, for tests and the doctor.
    package var peripheralFacts: PeripheralFacts? { supervisor.session?.facts }

    // MARK: Connection supervision

    private func startPeripheral(on connection: any BusConnection) async throws(DBusError) -> GattPeripheral {
        let value = state.withLock { $0.value }
        let peripheral: GattPeripheral
        do {
            peripheral = try GattPeripheral(
                bus: connection,
                configuration: GattPeripheral.Configuration(
                    adapter: settings.adapter, characteristicFlags: settings.characteristicFlags, initialValue: value),
                runtime: runtime, logger: logger, factsChanged: { [weak self] in self?.factsChanged() })
        } catch {
            throw DBusError.invalidArgs("\(error)")
        }
        try await peripheral.start()
        return peripheral
    }

    private func busChanged(_ event: BusSupervisor<GattPeripheral>.Event) {
        switch event {
        case .connected(_, let uniqueName):
            state.withLock { $0.busProblem = nil }
            logger.info("on the system bus as \(uniqueName); waiting for bluetoothd")
        case .failed(let error, _):
            state.withLock { $0.busProblem = "the D-Bus system bus is not reachable: \(error)" }
        case .lost:
            state.withLock { $0.busProblem = "the connection to the D-Bus system bus was lost" }
        }
        factsChanged()
    }
}
