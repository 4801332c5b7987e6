import DBusModel
import Platform
import Synchronization

/// The phone host's Wake receiver over bluetoothd: the shell around `CentralLifecycle`.
///
/// `start` subscribes to bluetoothd's signals and hands each 12-byte Wake to `deliver`, and each state change
/// to `state`. Callbacks run on the bus thread or a task: they must return quickly (yield to a stream). Every
/// call has a timeout; nothing polls: discovery runs only while searching, and a waiting central sleeps on one
/// timer.
package final class WakeCentral: Sendable {
    package struct Configuration: Sendable, Equatable {
        /// `[wake] adapter` on the phone host.
        package var adapter: String
        /// `[wake] address`; nil or empty: find the board by the Wake service UUID.
        package var boardAddress: String?
        package var callTimeout: Duration
        /// `Device1.Connect` (bluetoothd's own LE connection attempt may take tens of seconds).
        package var connectTimeout: Duration
        package var backoff: Backoff
        package var bondLostRetry: Duration

        package init(
            adapter: String = "hci0", boardAddress: String? = nil, callTimeout: Duration = .seconds(5),
            connectTimeout: Duration = .seconds(35), backoff: Backoff = Backoff(base: .seconds(1), cap: .seconds(60)),
            bondLostRetry: Duration = .seconds(300)
        ) {
            self.adapter = adapter
            self.boardAddress = boardAddress
            self.callTimeout = callTimeout
            self.connectTimeout = connectTimeout
            self.backoff = backoff
            self.bondLostRetry = bondLostRetry
        }
    }

    package typealias Deliver = @Sendable ([UInt8]) -> Void
    package typealias StateHandler = @Sendable (CentralState) -> Void
    package typealias ProblemHandler = @Sendable (String) -> Void

    private struct Handlers: Sendable {
        var deliver: Deliver
        var state: StateHandler
        var problem: ProblemHandler
    }

    private let bus: any MessageBus
    private let runtime: any Runtime
    private let logger: Logger
    package let configuration: Configuration
    private let handlers = Mutex<Handlers?>(nil)
    private let driver: LifecycleDriver<CentralLifecycle>

    package init(
        bus: any MessageBus, configuration: Configuration, runtime: any Runtime,
        logger: Logger
    ) {
        self.bus = bus
        self.configuration = configuration
        self.runtime = runtime
        self.logger = logger
        let settings = CentralLifecycle.Settings(
            adapter: configuration.adapter, boardAddress: configuration.boardAddress, backoff: configuration.backoff,
            bondLostRetry: configuration.bondLostRetry)
        driver = LifecycleDriver(CentralLifecycle(settings: settings), bus: bus, runtime: runtime, logger: logger)
        driver.attach { [weak self] actions, _, _ in self?.performAll(actions) }
    }

    /// Subscribes to bluetoothd's signals, asks who owns `org.bluez`, and from there finds, connects and
    /// subscribes on its own. Throws when a match cannot be added.
    package func start(
        deliver: @escaping Deliver, state stateHandler: @escaping StateHandler,
        problem: @escaping ProblemHandler = { _ in }
    ) async throws(DBusError) {
        handlers.withLock { $0 = Handlers(deliver: deliver, state: stateHandler, problem: problem) }
        try await driver.start(
            adapterPath: BlueZNames.adapterPath(configuration.adapter), callTimeout: configuration.callTimeout)
    }

    /// Stops listening, turns discovery off if it is on, and disconnects the board if linked.
    package func stop() async {
        let lifecycle = await driver.stop()
        if lifecycle.isSearching { try? await adapterCall("StopDiscovery") }
        if let device = lifecycle.activeDevice { try? await deviceCall(device, "Disconnect") }
    }

    package var facts: CentralFacts { driver.withLifecycle { $0.facts } }

    private func post(_ event: @escaping @Sendable (inout CentralLifecycle, Duration) -> [CentralLifecycle.Action]) {
        driver.post(event)
    }

    private func performAll(_ actions: [CentralLifecycle.Action]) {
        let handlers = handlers.withLock { $0 }
        for action in actions { perform(action, handlers) }
    }

    // MARK: Actions

    private func perform(_ action: CentralLifecycle.Action, _ handlers: Handlers?) {
        switch action {
        case .deliver(let value):
            handlers?.deliver(value)
        case .report(let newState):
            // The owner logs states and problems (it knows what they mean for its user): logging them here
            // too wrote every BLE line twice.
            handlers?.state(newState)
        case .problem(let text):
            handlers?.problem(text)
        case .discover(let round):
            runtime.spawn { [self] in
                do throws(DBusError) {
                    let objects = try await bus.getManagedObjects(
                        destination: BlueZNames.service, timeout: configuration.callTimeout)
                    post { lifecycle, now in lifecycle.discovered(objects, round: round, at: now) }
                } catch {
                    post { lifecycle, now in lifecycle.discoverFailed(round: round, error: error, at: now) }
                }
            }
        case .startSearch(let round):
            runtime.spawn { [self] in
                do throws(DBusError) {
                    try await adapterCall(
                        "SetDiscoveryFilter",
                        [.vardict(["UUIDs": .strings([WakeGATT.serviceUUID]), "Transport": .string("le")])])
                    try await adapterCall("StartDiscovery")
                    post { lifecycle, now in lifecycle.searchStarted(round: round, at: now) }
                } catch {
                    post { lifecycle, now in lifecycle.searchFailed(round: round, error: error, at: now) }
                }
            }
        case .stopSearch:
            runtime.spawn { [self] in
                do throws(DBusError) {
                    try await adapterCall("StopDiscovery")
                } catch {
                    logger.debug("StopDiscovery: \(error)")
                }
            }
        case .connect(let device, let link):
            runtime.spawn { [self] in
                do throws(DBusError) {
                    try await deviceCall(device, "Connect", timeout: configuration.connectTimeout)
                    post { lifecycle, now in lifecycle.connectSucceeded(link: link, at: now) }
                } catch {
                    post { lifecycle, now in lifecycle.connectFailed(link: link, error: error, at: now) }
                }
            }
        case .startNotify(let characteristic, let link):
            runtime.spawn { [self] in
                do throws(DBusError) {
                    try await characteristicCall(characteristic, "StartNotify", [], expecting: "")
                    post { lifecycle, now in lifecycle.notifyStarted(link: link, at: now) }
                } catch {
                    post { lifecycle, now in lifecycle.notifyFailed(link: link, error: error, at: now) }
                }
            }
        case .readValue(let characteristic, let link):
            runtime.spawn { [self] in
                do throws(DBusError) {
                    let reply = try await characteristicCall(
                        characteristic, "ReadValue", [.vardict([:])], expecting: "ay")
                    let value = reply[0].bytesValue ?? []
                    post { lifecycle, now in lifecycle.readSucceeded(value, link: link, at: now) }
                } catch {
                    post { lifecycle, now in lifecycle.readFailed(link: link, error: error, at: now) }
                }
            }
        case .disconnect(let device):
            runtime.spawn { [self] in
                do throws(DBusError) {
                    try await deviceCall(device, "Disconnect")
                } catch {
                    logger.debug("Disconnect: \(error)")
                }
            }
        }
    }

    private func adapterCall(_ member: String, _ body: [DBusValue] = []) async throws(DBusError) {
        _ = try await bus.call(
            destination: BlueZNames.service, path: BlueZNames.adapterPath(configuration.adapter),
            interface: BlueZNames.adapter, member: member, body, expecting: "", timeout: configuration.callTimeout)
    }

    private func deviceCall(
        _ device: DBusObjectPath, _ member: String, timeout: Duration? = nil
    ) async throws(DBusError) {
        _ = try await bus.call(
            destination: BlueZNames.service, path: device, interface: BlueZNames.device, member: member,
            expecting: "", timeout: timeout ?? configuration.callTimeout)
    }

    @discardableResult
    private func characteristicCall(
        _ path: DBusObjectPath, _ member: String, _ body: [DBusValue], expecting: DBusSignature
    ) async throws(DBusError) -> [DBusValue] {
        try await bus.call(
            destination: BlueZNames.service, path: path, interface: BlueZNames.gattCharacteristic, member: member,
            body, expecting: expecting, timeout: configuration.callTimeout)
    }
}
