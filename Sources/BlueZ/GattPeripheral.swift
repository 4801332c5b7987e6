import DBusModel
import Platform
import Retry
import Synchronization
import WireFormat

/// The board's Wake GATT peripheral on bluetoothd: the shell around `PeripheralLifecycle`.
///
/// It exports the GATT application (service + Wake characteristic under an object manager), the
/// advertisement and a NoInputNoOutput agent on its bus connection, follows bluetoothd's signals, performs
/// the lifecycle's calls (each with a timeout) and turns each Wake into `PropertiesChanged(Value)`, which
/// bluetoothd sends as a notification to subscribed phones. Handlers run on the bus thread and only take a
/// lock; nothing here blocks or polls.
package final class GattPeripheral: Sendable {
    package struct Configuration: Sendable, Equatable {
        /// `[wake] adapter`, e.g. `hci0`.
        package var adapter: String
        /// `[wake] characteristic_flags`.
        package var characteristicFlags: [String]
        /// What `ReadValue` answers before the first Wake (docs/protocol.md §2.1: a `system` envelope with the epoch
        /// and the last persisted sequence).
        package var initialValue: [UInt8]
        /// Timeout of the short calls (`GetManagedObjects`, `Properties.Set`, agent registration).
        package var callTimeout: Duration
        /// Timeout of `RegisterApplication`/`RegisterAdvertisement` (bluetoothd reads our objects first).
        package var registerTimeout: Duration
        package var backoff: Backoff

        package init(
            adapter: String = "hci0", characteristicFlags: [String] = WakeGATT.defaultFlags,
            initialValue: [UInt8], callTimeout: Duration = .seconds(5), registerTimeout: Duration = .seconds(10),
            backoff: Backoff = Backoff(base: .seconds(1), cap: .seconds(30))
        ) {
            self.adapter = adapter
            self.characteristicFlags = characteristicFlags
            self.initialValue = initialValue
            self.callTimeout = callTimeout
            self.registerTimeout = registerTimeout
            self.backoff = backoff
        }

        package var adapterPath: DBusObjectPath { BlueZNames.adapterPath(adapter) }
    }

    /// What the shell keeps beside the lifecycle (which the driver holds): the characteristic's value, and
    /// what it last logged, so each change is logged once.
    struct State: Sendable {
        var value: [UInt8]
        var lastLoggedProblem: String?
        var registrations: UInt64 = 0
        /// Pairing requests waiting for the lifecycle's answer, by number.
        var pairingRequests: [UInt64: PairingRequest] = [:]
        var nextPairingRequest: UInt64 = 0
    }

    let bus: any MessageBus
    let runtime: any Runtime
    let logger: Logger
    package let configuration: Configuration
    let flags: [String]
    let state: Mutex<State>
    let driver: LifecycleDriver<PeripheralLifecycle>
    /// Called after every event that may have changed `facts` (a lifecycle step, a phone's `StartNotify` or
    /// `StopNotify`), on the thread it happened on: the board's status line follows them instead of looking.
    let factsChanged: @Sendable () -> Void

    package init(
        bus: any MessageBus, configuration: Configuration, runtime: any Runtime,
        logger: Logger, factsChanged: @escaping @Sendable () -> Void = {}
    ) throws(WakeCharacteristicFlagsError) {
        self.bus = bus
        self.configuration = configuration
        self.runtime = runtime
        self.logger = logger
        self.factsChanged = factsChanged
        flags = try WakeCharacteristicFlags.validate(configuration.characteristicFlags)
        let settings = PeripheralLifecycle.Settings(
            adapterPath: configuration.adapterPath, backoff: configuration.backoff)
        state = Mutex(State(value: configuration.initialValue))
        driver = LifecycleDriver(
            PeripheralLifecycle(settings: settings), bus: bus, runtime: runtime, logger: logger)
        driver.attach { [weak self] actions, lifecycle, now in self?.performAll(actions, after: lifecycle, at: now) }
    }

    // MARK: Start and stop

    /// Exports the objects, subscribes to bluetoothd's signals, then asks who owns `org.bluez`; registration
    /// follows from there on its own. Throws when an object cannot be exported or a match cannot be added.
    package func start() async throws(DBusError) {
        // Children first: nobody needs InterfacesAdded for objects that are not registered yet.
        try bus.export(serviceObject(), at: WakeGATT.Paths.service)
        try bus.export(characteristicObject(), at: WakeGATT.Paths.characteristic)
        try bus.export(DBusExportedObject.objectManager, at: WakeGATT.Paths.application)
        try bus.export(advertisementObject(), at: WakeGATT.Paths.advertisement)
        try bus.export(agentObject(), at: WakeGATT.Paths.agent)
        try await driver.start(adapterPath: configuration.adapterPath, callTimeout: configuration.callTimeout)
    }

    /// Removes the objects and signal subscriptions. bluetoothd drops our registrations when this connection
    /// closes; the objects going away is enough for it to stop using them.
    package func stop() async {
        _ = await driver.stop()
        for path in [
            WakeGATT.Paths.agent, WakeGATT.Paths.advertisement, WakeGATT.Paths.characteristic, WakeGATT.Paths.service,
            WakeGATT.Paths.application,
        ] {
            bus.unexport(path)
        }
    }

    // MARK: Wakes, pairing, facts

    /// Makes `bytes` the characteristic's value and, when registered, emits `PropertiesChanged(Value)`:
    /// bluetoothd notifies every phone that enabled notifications. Fails when not registered (the value still
    /// changes, for `ReadValue`) or when the signal cannot be sent.
    package func send(_ bytes: [UInt8]) -> Result<Void, DBusError> {
        state.withLock { $0.value = bytes }
        let facts = self.facts
        guard facts.gattRegistered else {
            return .failure(.failed("not registered with bluetoothd: \(facts.problem ?? "registration in progress")"))
        }
        do {
            try bus.emitPropertiesChanged(
                path: WakeGATT.Paths.characteristic, interface: BlueZNames.gattCharacteristic,
                changed: ["Value": .bytes(bytes)])
            return .success(())
        } catch {
            return .failure(error)
        }
    }

    /// Opens (or extends) the pairing window and says what came of it: when it closes (at most 300 s after it
    /// first opened), that none may open yet, or that it could not be made ready. Waits for the executor (the
    /// lifecycle decides there, in order with bluetoothd's events) and, for a new window, until bluetoothd
    /// confirmed it ready (bounded): call it from another thread, never from the executor. nil once stopped.
    @discardableResult
    package func openPairingWindow(
        for duration: Duration, forgetting phone: String? = nil, unlessBonded: Bool = false
    ) -> PairingOutcome? {
        guard let request = requestPairingWindow(for: duration, forgetting: phone, unlessBonded: unlessBonded)
        else { return nil }
        // The lifecycle gives up an unready window after `pairingPreparationTimeout`; this bound only guards
        // against an executor that stopped.
        let bound = driver.withLifecycle { $0.settings.pairingPreparationTimeout } + .seconds(1)
        let answer = request.wait(timeout: bound)
        state.withLock { _ = $0.pairingRequests.removeValue(forKey: request.number) }
        return answer ?? .failed("no answer from the Bluetooth peripheral in time")
    }

    /// The request behind `openPairingWindow`, without waiting: its `answer` is set at once (an extension, a
    /// cool-down) or once the window is ready or given up. nil once stopped.
    package func requestPairingWindow(
        for duration: Duration, forgetting phone: String? = nil, unlessBonded: Bool = false
    ) -> PairingRequest? {
        let request = state.withLock { state in
            state.nextPairingRequest += 1
            let request = PairingRequest(number: state.nextPairingRequest)
            state.pairingRequests[request.number] = request
            return request
        }
        let immediate: PairingOutcome?? = driver.request { lifecycle, now in
            lifecycle.openPairingWindow(
                for: duration, forgetting: phone, unlessBonded: unlessBonded, request: request.number, at: now)
        }
        guard let immediate else {
            state.withLock { _ = $0.pairingRequests.removeValue(forKey: request.number) }
            return nil
        }
        if let answer = immediate { answered(request.number, answer) }
        return request
    }

    /// Hands the lifecycle's answer to the request that waits for it, and logs it.
    func answered(_ number: UInt64, _ answer: PairingOutcome) {
        switch answer {
        case let .open(closesIn): logger.notice("pairing window open for \(closesIn)")
        case let .coolingDown(retryIn): logger.notice("pairing window refused: cooling down for \(retryIn)")
        case let .failed(why): logger.warning("pairing window not opened: \(why)")
        case .bondKept: logger.notice("pairing window not opened: the board still holds the asking phone's bond")
        }
        state.withLock { $0.pairingRequests[number] }?.resolve(answer)
    }

    package var facts: PeripheralFacts {
        let now = runtime.monotonicNow()
        return driver.withLifecycle { $0.facts(at: now) }
    }

    /// The characteristic's current value (what `ReadValue` at offset 0 answers).
    package var value: [UInt8] { state.withLock { $0.value } }

    // MARK: Events into the lifecycle

    /// Feeds one event to the lifecycle (through the driver, which re-arms the timer and performs the actions).
    func post(_ event: @escaping @Sendable (inout PeripheralLifecycle, Duration) -> [PeripheralLifecycle.Action]) {
        driver.post(event)
    }

    /// Logs what changed for the people reading the journal, then performs the lifecycle's actions.
    private func performAll(
        _ actions: [PeripheralLifecycle.Action], after lifecycle: PeripheralLifecycle, at now: Duration
    ) {
        let facts = lifecycle.facts(at: now)
        let (registeredNow, problem) = state.withLock { state -> (Bool, String??) in
            var problem: String??
            if facts.problem != state.lastLoggedProblem {
                state.lastLoggedProblem = facts.problem
                problem = .some(facts.problem)
            }
            defer { state.registrations = max(state.registrations, facts.registrations) }
            return (facts.registrations > state.registrations, problem)
        }
        if let problem { logger.notice(problem.map { "bluez: \($0)" } ?? "bluez: the problem is gone") }
        if registeredNow {
            logger.notice("Wake service and advertisement registered on \(configuration.adapter)")
        }
        for action in actions { perform(action) }
        factsChanged()
    }
}
