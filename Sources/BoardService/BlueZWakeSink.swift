import BlueZ
import BoardAPI
import DBus
import DBusModel
import Platform
import Synchronization
import WakeProtocol

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
        var peripheral: GattPeripheral?
        var connection: DBusConnection?
        var busProblem: String? = "connecting to the D-Bus system bus"
        var failures = 0
        var stopped = false
        /// A pairing window asked for before the peripheral existed: opened as soon as it does.
        var pendingPairing: Duration?
    }

    private let settings: Settings
    private let logger: Logger
    private let state: Mutex<State>

    /// Checks the settings and starts connecting in the background.
    package init(settings: Settings, initialValue: WakeEnvelope, logger: Logger) throws(WakeCharacteristicFlagsError) {
        _ = try WakeCharacteristicFlags.validate(settings.characteristicFlags)
        self.settings = settings
        self.logger = logger
        state = Mutex(State(value: initialValue.bytes))
        Task { await self.connect() }
    }

    package var transportName: String { "bluez" }

    package func send(_ envelope: WakeEnvelope) -> Result<Void, WakeSinkError> {
        let (peripheral, problem) = state.withLock { state in
            state.value = envelope.bytes
            return (state.peripheral, state.busProblem)
        }
        guard let peripheral else { return .failure(WakeSinkError(problem ?? "not connected to the system bus")) }
        return peripheral.send(envelope.bytes).mapError { WakeSinkError($0.message.isEmpty ? $0.name : $0.message) }
    }

    package func bluetoothFacts() -> BluetoothFacts {
        let (peripheral, problem) = state.withLock { ($0.peripheral, $0.busProblem) }
        guard let peripheral else { return BluetoothFacts(adapter: settings.adapter, problem: problem) }
        let facts = peripheral.facts
        return BluetoothFacts(
            adapter: settings.adapter, adapterPresent: facts.adapterPresent, powered: facts.powered,
            bluezRunning: facts.bluezRunning, gattRegistered: facts.gattRegistered, advertising: facts.advertising,
            wakeSubscriber: facts.wakeSubscriber, address: facts.address,
            pairingClosesInSeconds: facts.pairingClosesIn.map { Int(($0 + .milliseconds(999)).components.seconds) },
            problem: facts.problem)
    }

    package func openPairingWindow(for duration: Duration) -> Result<Void, WakeSinkError> {
        let peripheral = state.withLock { state in
            if state.peripheral == nil { state.pendingPairing = duration }
            return state.peripheral
        }
        peripheral?.openPairingWindow(for: duration)
        return .success(())
    }

    /// Stops the peripheral and closes the bus connection (tests; the daemon simply exits).
    package func stop() async {
        let (peripheral, connection) = state.withLock { state in
            state.stopped = true
            return (state.peripheral, state.connection)
        }
        await peripheral?.stop()
        connection?.close()
    }

    /// The peripheral's facts, for tests and the doctor.
    package var peripheralFacts: PeripheralFacts? { state.withLock { $0.peripheral?.facts } }

    // MARK: Connection supervision

    private func connect() async {
        while !state.withLock({ $0.stopped }) {
            do throws(DBusError) {
                let connection = try await DBusConnection.connect(to: settings.address, timeout: .seconds(5))
                let peripheral = try makePeripheral(connection)
                try await peripheral.start()
                let (stopped, pairing) = state.withLock { state in
                    state.connection = connection
                    state.peripheral = peripheral
                    state.busProblem = nil
                    state.failures = 0
                    defer { state.pendingPairing = nil }
                    return (state.stopped, state.pendingPairing)
                }
                if stopped {
                    await peripheral.stop()
                    connection.close()
                    return
                }
                if let pairing { peripheral.openPairingWindow(for: pairing) }
                logger.info("on the system bus as \(connection.uniqueName); waiting for bluetoothd")
                connection.onDisconnect { [weak self] in self?.connectionLost() }
                return
            } catch {
                let delay = state.withLock { state in
                    state.failures += 1
                    state.busProblem = "the D-Bus system bus is not reachable: \(error)"
                    return settings.reconnect.delay(afterFailures: state.failures)
                }
                logger.warning("system bus: \(error); retrying in \(delay)")
                try? await Task.sleep(for: delay)
            }
        }
    }

    private func makePeripheral(_ connection: DBusConnection) throws(DBusError) -> GattPeripheral {
        let value = state.withLock { $0.value }
        do {
            return try GattPeripheral(
                bus: connection,
                configuration: GattPeripheral.Configuration(
                    adapter: settings.adapter, characteristicFlags: settings.characteristicFlags, initialValue: value),
                logger: logger)
        } catch {
            connection.close()
            throw DBusError.invalidArgs("\(error)")
        }
    }

    private func connectionLost() {
        let stopped = state.withLock { state in
            state.peripheral = nil
            state.connection = nil
            state.busProblem = "the connection to the D-Bus system bus was lost"
            return state.stopped
        }
        guard !stopped else { return }
        logger.warning("lost the system bus; reconnecting")
        Task { await self.connect() }
    }
}
