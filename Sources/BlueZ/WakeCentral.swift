import DBusModel
import Platform
import Retry
import Synchronization

/// The phone host's Wake receiver over bluetoothd: the shell around `CentralLifecycle`.
///
/// `start` subscribes to bluetoothd's signals and hands each 12-byte Wake to `deliver`, and each state change
/// to `state`. Callbacks run on the runtime's executor, where the lifecycle's actions are performed: they must
/// return quickly (hand the work on) and must not wait for the executor. Every call has a timeout; nothing
/// polls: discovery runs only while searching, and a waiting central sleeps on one timer.
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
        /// The board bonded with before (the phone's state directory), followed when no address is configured.
        package var rememberedAddress: String?
        /// The bus timeout of `Device1.Pair`: only a bound on the call. The central's lifecycle gives a stalled
        /// `Pair` up sooner (`CentralLifecycle.Settings.pairTimeout`, 5 s), cancels it and tries again.
        package var pairTimeout: Duration

        package init(
            adapter: String = "hci0", boardAddress: String? = nil, callTimeout: Duration = .seconds(5),
            connectTimeout: Duration = .seconds(35), backoff: Backoff = Backoff(base: .seconds(1), cap: .seconds(60)),
            bondLostRetry: Duration = .seconds(300), rememberedAddress: String? = nil,
            pairTimeout: Duration = .seconds(30)
        ) {
            self.adapter = adapter
            self.boardAddress = boardAddress
            self.callTimeout = callTimeout
            self.connectTimeout = connectTimeout
            self.backoff = backoff
            self.bondLostRetry = bondLostRetry
            self.rememberedAddress = rememberedAddress
            self.pairTimeout = pairTimeout
        }
    }

    /// Where the phone's pairing agent lives on its own connection (outside the board's paths: in a lab one
    /// bluetoothd may serve both).
    package static let agentPath: DBusObjectPath = "/org/aidenbridge/phone/agent"

    package typealias Deliver = @Sendable ([UInt8]) -> Void
    package typealias StateHandler = @Sendable (CentralState) -> Void
    package typealias ProblemHandler = @Sendable (String) -> Void
    /// A bond was made over the cable with the board at this address: remember it.
    package typealias BondedHandler = @Sendable (String) -> Void

    private struct Handlers: Sendable {
        var deliver: Deliver
        var state: StateHandler
        var problem: ProblemHandler
        var bonded: BondedHandler
    }

    private let bus: any MessageBus
    private let runtime: any Runtime
    private let logger: Logger
    package let configuration: Configuration
    private let handlers = Mutex<Handlers?>(nil)
    private let driver: LifecycleDriver<CentralLifecycle>
    /// The cable to the board, when bonding over it is possible (nil: bonds are made by hand).
    private let cable: (any PairingCable)?

    /// `cable`: how to reach the board over USB for automatic bonding; nil leaves bonding to the user.
    package init(
        bus: any MessageBus, configuration: Configuration, runtime: any Runtime,
        logger: Logger, cable: (any PairingCable)? = nil
    ) {
        self.bus = bus
        self.configuration = configuration
        self.runtime = runtime
        self.logger = logger
        self.cable = cable
        let settings = CentralLifecycle.Settings(
            adapter: configuration.adapter, boardAddress: configuration.boardAddress, backoff: configuration.backoff,
            bondLostRetry: configuration.bondLostRetry, bondsOverCable: cable != nil,
            rememberedAddress: configuration.rememberedAddress)
        driver = LifecycleDriver(CentralLifecycle(settings: settings), bus: bus, runtime: runtime, logger: logger)
        driver.attach { [weak self] actions, _, _ in self?.performAll(actions) }
    }

    /// Subscribes to bluetoothd's signals, asks who owns `org.bluez`, and from there finds, connects and
    /// subscribes on its own. Throws when a match cannot be added.
    package func start(
        deliver: @escaping Deliver, state stateHandler: @escaping StateHandler,
        problem: @escaping ProblemHandler = { _ in }, bonded: @escaping BondedHandler = { _ in }
    ) async throws(DBusError) {
        handlers.withLock { $0 = Handlers(deliver: deliver, state: stateHandler, problem: problem, bonded: bonded) }
        if cable != nil { try bus.export(agentObject(), at: Self.agentPath) }
        try await driver.start(
            adapterPath: BlueZNames.adapterPath(configuration.adapter), callTimeout: configuration.callTimeout)
    }

    /// How long stopping waits for each of bluetoothd's replies. bluetoothd finishes a `Disconnect` by itself once
    /// asked, but answers only when the link is down, after giving the services on it 2 s to let go (BlueZ's
    /// disconnect timer): the phone's stop took 3.1 s in the VM that way, and a stopping daemon must not wait it out.
    static let stopCallTimeout: Duration = .seconds(1)

    /// Stops listening, turns discovery off if it is on, and disconnects the board if linked.
    package func stop() async {
        let lifecycle = await driver.stop()
        if lifecycle.isSearching { try? await adapterCall("StopDiscovery", timeout: Self.stopCallTimeout) }
        if let device = lifecycle.activeDevice {
            try? await deviceCall(device, "Disconnect", timeout: Self.stopCallTimeout)
        }
        if cable != nil { bus.unexport(Self.agentPath) }
    }

    /// The USB link to the board came up; `boardAddress` is the Bluetooth address the board named over it,
    /// if it could be asked. A bond waiting for the cable is tried now.
    package func cableArrived(boardAddress: String?) {
        post { lifecycle, now in
            if let boardAddress { return lifecycle.cableNamedBoard(boardAddress, at: now) }
            return lifecycle.cableArrived(at: now)
        }
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
            runtime.spawn { [self] in await startDiscovery(round: round) }
        case .restartSearch(let round):
            // In turn: bluetoothd answers a StartDiscovery sent while its StopDiscovery is pending with Busy.
            runtime.spawn { [self] in
                do throws(DBusError) {
                    try await adapterCall("StopDiscovery")
                } catch {
                    logger.debug("StopDiscovery before searching again: \(error)")
                }
                await startDiscovery(round: round)
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
        case .openPairingWindow(let link, let hostAddress):
            guard let cable else {
                post { lifecycle, now in lifecycle.windowFailed("no USB cable to the board here", link: link, at: now) }
                return
            }
            runtime.spawn { [self] in
                do throws(PairingCableError) {
                    let address = try await cable.openPairingWindow(hostAddress: hostAddress)
                    post { lifecycle, now in lifecycle.windowOpened(boardAddress: address, link: link, at: now) }
                } catch {
                    post { lifecycle, now in
                        lifecycle.windowFailed(error.message, retryAfter: error.retryAfter, link: link, at: now)
                    }
                }
            }
        case .confirmBondLost(let link, let hostAddress):
            guard let cable else {
                post { lifecycle, now in lifecycle.windowFailed("no USB cable to the board here", link: link, at: now) }
                return
            }
            runtime.spawn { [self] in
                do throws(PairingCableError) {
                    let lost = try await cable.confirmBondLost(hostAddress: hostAddress)
                    post { lifecycle, now in
                        lost
                            ? lifecycle.boardForgotBond(link: link, at: now)
                            : lifecycle.boardKeptBond(link: link, at: now)
                    }
                } catch {
                    post { lifecycle, now in lifecycle.windowFailed(error.message, link: link, at: now) }
                }
            }
        case .registerAgent(let round):
            runtime.spawn { [self] in
                do throws(DBusError) {
                    // Not `RequestDefaultAgent`: bluetoothd asks the agent of the connection that called `Pair`,
                    // and a desktop's own agent stays the default for everything else.
                    _ = try await bus.call(
                        destination: BlueZNames.service, path: BlueZNames.root, interface: BlueZNames.agentManager,
                        member: "RegisterAgent", [.objectPath(Self.agentPath), .string("NoInputNoOutput")],
                        expecting: "", timeout: configuration.callTimeout)
                    post { lifecycle, now in lifecycle.agentRegistered(round: round, at: now) }
                } catch {
                    post { lifecycle, now in lifecycle.agentFailed(round: round, error: error, at: now) }
                }
            }
        case .pair(let device, let link, let attempt):
            runtime.spawn { [self] in
                do throws(DBusError) {
                    try await deviceCall(device, "Pair", timeout: configuration.pairTimeout)
                    post { lifecycle, now in lifecycle.pairSucceeded(link: link, attempt: attempt, at: now) }
                } catch {
                    post { lifecycle, now in lifecycle.pairFailed(link: link, attempt: attempt, error: error, at: now) }
                }
            }
        case .cancelPairing(let device):
            runtime.spawn { [self] in
                do throws(DBusError) {
                    try await deviceCall(device, "CancelPairing")
                } catch {
                    logger.debug("CancelPairing: \(error)")
                }
            }
        case .trust(let device, let link):
            runtime.spawn { [self] in
                do throws(DBusError) {
                    try await bus.setProperty(
                        "Trusted", interface: BlueZNames.device, path: device, destination: BlueZNames.service,
                        value: .boolean(true), timeout: configuration.callTimeout)
                    post { lifecycle, now in lifecycle.trustFinished(link: link, error: nil, at: now) }
                } catch {
                    post { lifecycle, now in lifecycle.trustFinished(link: link, error: error, at: now) }
                }
            }
        case .removeBond(let device, let link):
            runtime.spawn { [self] in
                do throws(DBusError) {
                    try await adapterCall("RemoveDevice", [.objectPath(device)])
                    post { lifecycle, now in lifecycle.bondRemoved(link: link, error: nil, at: now) }
                } catch {
                    post { lifecycle, now in lifecycle.bondRemoved(link: link, error: error, at: now) }
                }
            }
        case .bonded(let address):
            handlers?.bonded(address)
        }
    }

    /// The phone's pairing agent: Just Works from the initiating side (nothing to show, nothing to type).
    /// It confirms only for the board being paired over the cable, and only when bluetoothd asks; anything
    /// else (another device, another sender, a profile's `AuthorizeService`) is refused.
    private func agentObject() -> DBusExportedObject {
        PairingAgent.object(role: "this phone host's agent") { [weak self] question, call throws(DBusError) in
            guard let self else { throw PairingAgent.rejected("the phone's agent is gone") }
            switch question {
            case .confirmation: try confirm("pairing confirmation", call)
            case .authorization: try confirm("pairing", call)
            case .service: throw PairingAgent.rejected("this agent only pairs with the board")
            }
        }
    }

    private func confirm(_ what: String, _ call: DBusMessage) throws(DBusError) {
        let device = call.body.first?.objectPathValue
        let allowed = driver.withLifecycle { lifecycle in
            lifecycle.isPairing(device, askedBy: call.sender)
        }
        guard allowed else {
            logger.notice("refused \(what) for \(device?.rawValue ?? "?"): not the board being paired over the cable")
            throw PairingAgent.rejected("not the board being paired over the cable")
        }
        logger.info("accepted \(what) for \(device?.rawValue ?? "?")")
    }

    /// `SetDiscoveryFilter` (the Wake service, LE) and `StartDiscovery`, answered to the lifecycle.
    private func startDiscovery(round: UInt64) async {
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

    private func adapterCall(
        _ member: String, _ body: [DBusValue] = [], timeout: Duration? = nil
    ) async throws(DBusError) {
        _ = try await bus.call(
            destination: BlueZNames.service, path: BlueZNames.adapterPath(configuration.adapter),
            interface: BlueZNames.adapter, member: member, body, expecting: "",
            timeout: timeout ?? configuration.callTimeout)
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
