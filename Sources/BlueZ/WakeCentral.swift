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

    private struct State: Sendable {
        var lifecycle: CentralLifecycle
        var handlers: Handlers?
        var tokens: [DBusMatchToken] = []
        var ownerSignalSeen = false
        var timer = TimerSlot()
        var stopped = false
    }

    private let bus: any MessageBus
    private let runtime: any Runtime
    private let logger: Logger
    package let configuration: Configuration
    private let state: Mutex<State>

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
        state = Mutex(State(lifecycle: CentralLifecycle(settings: settings)))
    }

    /// Subscribes to bluetoothd's signals, asks who owns `org.bluez`, and from there finds, connects and
    /// subscribes on its own. Throws when a match cannot be added.
    package func start(
        deliver: @escaping Deliver, state stateHandler: @escaping StateHandler,
        problem: @escaping ProblemHandler = { _ in }
    ) async throws(DBusError) {
        state.withLock { $0.handlers = Handlers(deliver: deliver, state: stateHandler, problem: problem) }
        let adapterPath = BlueZNames.adapterPath(configuration.adapter)
        var tokens: [DBusMatchToken] = []
        tokens.append(
            try await bus.watchNameOwner(BlueZNames.service) { [weak self] owner in
                self?.ownerChanged(owner)
            })
        tokens.append(
            try await bus.addMatch(
                DBusMatchRule(sender: BlueZNames.service, interface: DBusStandardInterfaces.objectManager, path: .root)
            ) { [weak self] message in self?.signalArrived(message) })
        tokens.append(
            try await bus.addMatch(.propertiesChanged(sender: BlueZNames.service, pathNamespace: adapterPath)) {
                [weak self] message in self?.signalArrived(message)
            })
        state.withLock { $0.tokens = tokens }
        let owner: String?
        do {
            owner = try await bus.nameOwner(BlueZNames.service, timeout: configuration.callTimeout)
        } catch {
            logger.warning("cannot ask the bus who owns org.bluez: \(error)")
            owner = nil
        }
        if state.withLock({ !$0.ownerSignalSeen }) {
            post { lifecycle, now in lifecycle.bluezOwnerChanged(owner, at: now) }
        }
    }

    /// Stops listening, turns discovery off if it is on, and disconnects the board if linked.
    package func stop() async {
        let (tokens, searching, device) = state.withLock { state in
            state.stopped = true
            state.timer.cancel()
            defer { state.tokens = [] }
            return (state.tokens, state.lifecycle.isSearching, state.lifecycle.activeDevice)
        }
        for token in tokens { await bus.removeMatch(token) }
        if searching { try? await adapterCall("StopDiscovery") }
        if let device { try? await deviceCall(device, "Disconnect") }
    }

    package var facts: CentralFacts { state.withLock { $0.lifecycle.facts } }

    // MARK: Events

    private func ownerChanged(_ owner: String?) {
        state.withLock { $0.ownerSignalSeen = true }
        logger.notice(owner.map { "bluetoothd is on the bus as \($0)" } ?? "bluetoothd left the bus")
        post { lifecycle, now in lifecycle.bluezOwnerChanged(owner, at: now) }
    }

    private func signalArrived(_ message: DBusMessage) {
        guard let signal = BlueZSignal(message) else { return }
        post { lifecycle, now in lifecycle.received(signal, at: now) }
    }

    private func post(_ event: (inout CentralLifecycle, Duration) -> [CentralLifecycle.Action]) {
        let now = runtime.monotonicNow()
        let (actions, handlers) = state.withLock { state -> ([CentralLifecycle.Action], Handlers?) in
            guard !state.stopped else { return ([], nil) }
            let actions = event(&state.lifecycle, now)
            state.timer.update(to: state.lifecycle.nextDeadline, runtime: runtime) { [weak self] deadline in
                self?.timerFired(deadline)
            }
            return (actions, state.handlers)
        }
        for action in actions { perform(action, handlers) }
    }

    private func timerFired(_ deadline: Duration) {
        state.withLock { $0.timer.fired(deadline) }
        post { lifecycle, now in lifecycle.timerFired(at: now) }
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
