import DBusModel
import Platform
import Synchronization

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
        /// What `ReadValue` answers before the first Wake (CONTRACT.md §2: a `system` envelope with the epoch
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

    struct State: Sendable {
        var lifecycle: PeripheralLifecycle
        var value: [UInt8]
        var tokens: [DBusMatchToken] = []
        /// A `NameOwnerChanged` arrived: a later `GetNameOwner` answer is older than it.
        var ownerSignalSeen = false
        var timer = TimerSlot()
        var stopped = false
        var lastLoggedProblem: String?
    }

    let bus: any MessageBus
    let runtime: any Runtime
    let logger: Logger
    package let configuration: Configuration
    let flags: [String]
    let state: Mutex<State>

    package init(
        bus: any MessageBus, configuration: Configuration, runtime: any Runtime,
        logger: Logger
    ) throws(WakeCharacteristicFlagsError) {
        self.bus = bus
        self.configuration = configuration
        self.runtime = runtime
        self.logger = logger
        flags = try WakeCharacteristicFlags.validate(configuration.characteristicFlags)
        let settings = PeripheralLifecycle.Settings(
            adapterPath: configuration.adapterPath, backoff: configuration.backoff)
        state = Mutex(State(lifecycle: PeripheralLifecycle(settings: settings), value: configuration.initialValue))
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
            try await bus.addMatch(
                .propertiesChanged(sender: BlueZNames.service, pathNamespace: configuration.adapterPath)
            ) { [weak self] message in self?.signalArrived(message) })
        state.withLock { $0.tokens = tokens }

        let owner: String?
        do {
            owner = try await bus.nameOwner(BlueZNames.service, timeout: configuration.callTimeout)
        } catch {
            logger.warning("cannot ask the bus who owns org.bluez: \(error)")
            owner = nil
        }
        let fresh = state.withLock { !$0.ownerSignalSeen }
        if fresh { post { lifecycle, now in lifecycle.bluezOwnerChanged(owner, at: now) } }
    }

    /// Removes the objects and signal subscriptions. bluetoothd drops our registrations when this connection
    /// closes; the objects going away is enough for it to stop using them.
    package func stop() async {
        let tokens = state.withLock { state in
            state.stopped = true
            state.timer.cancel()
            defer { state.tokens = [] }
            return state.tokens
        }
        for token in tokens { await bus.removeMatch(token) }
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
        let facts = state.withLock { state in
            state.value = bytes
            return state.lifecycle.facts(at: runtime.monotonicNow())
        }
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

    /// Opens (or extends) the pairing window; returns how long it stays open (at most 300 s).
    @discardableResult
    package func openPairingWindow(for duration: Duration) -> Duration {
        let now = runtime.monotonicNow()
        var closesAt = now
        post { lifecycle, now in
            let opening = lifecycle.openPairingWindow(for: duration, at: now)
            closesAt = opening.closesAt
            return opening.actions
        }
        logger.notice("pairing window open for \(closesAt - now)")
        return closesAt - now
    }

    package var facts: PeripheralFacts {
        state.withLock { $0.lifecycle.facts(at: runtime.monotonicNow()) }
    }

    /// The characteristic's current value (what `ReadValue` at offset 0 answers).
    package var value: [UInt8] { state.withLock { $0.value } }

    // MARK: Events into the lifecycle

    private func ownerChanged(_ owner: String?) {
        state.withLock { $0.ownerSignalSeen = true }
        logger.notice(owner.map { "bluetoothd is on the bus as \($0)" } ?? "bluetoothd left the bus")
        post { lifecycle, now in lifecycle.bluezOwnerChanged(owner, at: now) }
    }

    private func signalArrived(_ message: DBusMessage) {
        guard let signal = BlueZSignal(message) else { return }
        post { lifecycle, now in lifecycle.received(signal, at: now) }
    }

    /// Feeds one event to the lifecycle and re-arms the timer under the lock, then performs the actions outside it.
    func post(_ event: (inout PeripheralLifecycle, Duration) -> [PeripheralLifecycle.Action]) {
        let now = runtime.monotonicNow()
        let (actions, registeredNow, problem) = state.withLock {
            state -> ([PeripheralLifecycle.Action], Bool, String??) in
            guard !state.stopped else { return ([], false, nil) }
            let before = state.lifecycle.facts(at: now)
            let actions = event(&state.lifecycle, now)
            let after = state.lifecycle.facts(at: now)
            state.timer.update(to: state.lifecycle.nextDeadline, runtime: runtime) { [weak self] deadline in
                self?.timerFired(deadline)
            }
            var problem: String??
            if after.problem != state.lastLoggedProblem {
                state.lastLoggedProblem = after.problem
                problem = .some(after.problem)
            }
            return (actions, after.registrations > before.registrations, problem)
        }
        if let problem { logger.notice(problem.map { "bluez: \($0)" } ?? "bluez: the problem is gone") }
        if registeredNow {
            logger.notice("Wake service and advertisement registered on \(configuration.adapter)")
        }
        for action in actions { perform(action) }
    }

    private func timerFired(_ deadline: Duration) {
        state.withLock { $0.timer.fired(deadline) }
        post { lifecycle, now in lifecycle.timerFired(at: now) }
    }
}
