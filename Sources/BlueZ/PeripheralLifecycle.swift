import DBusModel

/// The board peripheral's life with bluetoothd, as a pure state machine: events in (bus signals, call results,
/// time), actions out (calls to make). No I/O and no clock: `now` is a monotonic time from any fixed origin.
///
/// The flow (CONTRACT.md §2): once `org.bluez` has an owner, read its object tree (`GetManagedObjects`); once
/// the adapter carries `Adapter1`, `GattManager1` and `LEAdvertisingManager1` and is powered, run the
/// registration steps one at a time: the adapter's pairing policy, the agent (once per bluetoothd), the GATT
/// application, the advertisement. A failed step is retried after a doubling backoff. bluetoothd leaving or
/// returning starts everything over at once; the adapter losing power, or an interface, marks everything but
/// the agent unregistered and registers again when it is back (`AlreadyExists` then counts as registered).
///
/// Every call is tagged with the `round` it was issued in; an answer from an earlier round is ignored, so a
/// late answer can never mark a registration that bluetoothd has since forgotten.
package struct PeripheralLifecycle: Sendable {
    package struct Settings: Sendable, Equatable {
        package var adapterPath: DBusObjectPath
        package var backoff: Backoff
        /// The longest pairing window a request may open (300 s).
        package var maximumPairingWindow: Duration

        package init(
            adapterPath: DBusObjectPath, backoff: Backoff = Backoff(base: .seconds(1), cap: .seconds(30)),
            maximumPairingWindow: Duration = .seconds(300)
        ) {
            self.adapterPath = adapterPath
            self.backoff = backoff
            self.maximumPairingWindow = maximumPairingWindow
        }
    }

    /// One call (or pair of calls) in the registration flow.
    package enum Step: String, Sendable, Hashable, CaseIterable {
        case discover
        case adapterPolicy = "adapter policy"
        case agent
        case application
        case advertisement
    }

    /// What the shell must do now.
    package enum Action: Sendable, Equatable {
        /// `GetManagedObjects` on `org.bluez` `/`; answer with `discovered` or `stepFailed(.discover)`.
        case discover(round: UInt64)
        /// `Properties.Set` on the adapter: `Discoverable` false, `Pairable` as given (with `PairableTimeout`
        /// first when true).
        case applyAdapterPolicy(round: UInt64, pairable: Bool, pairableTimeoutSeconds: UInt32)
        /// `AgentManager1.RegisterAgent(agent, "NoInputNoOutput")`, then `RequestDefaultAgent(agent)`.
        case registerAgent(round: UInt64)
        /// `GattManager1.RegisterApplication(application, {})`.
        case registerApplication(round: UInt64)
        /// `LEAdvertisingManager1.RegisterAdvertisement(advertisement, {})`.
        case registerAdvertisement(round: UInt64)
        /// A pairing window opened or closed while the adapter is set up: `Pairable` (and its timeout).
        case setPairable(Bool, timeoutSeconds: UInt32)
        /// The advertisement's `Discoverable` changed: emit `PropertiesChanged` (bluetoothd re-reads it).
        case announceDiscoverable(Bool)
    }

    private enum Progress: Sendable, Equatable {
        case idle
        case inFlight(Step)
        /// `step` failed; try again at `until`.
        case waiting(Step, until: Duration)
    }

    package let settings: Settings
    /// nil until the first answer about `org.bluez`'s owner.
    private var ownerKnown = false
    private var bluezOwner: String?
    package private(set) var round: UInt64 = 0
    private var discovered = false
    private var adapter = AdapterState()
    /// Signals that arrived while `GetManagedObjects` was in flight: they are newer than its answer may be.
    private var pendingSignals: [BlueZSignal] = []
    private var completed: Set<Step> = []
    private var progress = Progress.idle
    private var failures = 0
    private var lastProblem: String?
    private var pairingClosesAt: Duration?
    private var notifySession: String?
    private var startNotifyCalls: UInt64 = 0
    private var registrations: UInt64 = 0
    private var releases = 0

    package init(settings: Settings) {
        self.settings = settings
    }

    // MARK: Events

    /// The owner of `org.bluez` (nil: nobody), from `GetNameOwner` at start or `NameOwnerChanged` later.
    package mutating func bluezOwnerChanged(_ owner: String?, at now: Duration) -> [Action] {
        if ownerKnown && owner == bluezOwner { return [] }
        ownerKnown = true
        bluezOwner = owner
        round += 1
        discovered = false
        adapter = AdapterState()
        pendingSignals = []
        completed = []
        progress = .idle
        failures = 0
        notifySession = nil
        releases = 0
        lastProblem = owner == nil ? "bluetoothd (org.bluez) is not on the bus" : nil
        return advance(at: now)
    }

    /// The answer to `discover`: bluetoothd's whole object tree.
    package mutating func discovered(_ objects: DBusManagedObjects, round: UInt64, at now: Duration) -> [Action] {
        guard round == self.round, progress == .inFlight(.discover) else { return [] }
        adapter = AdapterState(path: settings.adapterPath, in: objects)
        for signal in pendingSignals { adapter.apply(signal, adapterPath: settings.adapterPath) }
        pendingSignals = []
        discovered = true
        failures = 0
        progress = .idle
        noteAdapterProblem()
        return advance(at: now)
    }

    /// A signal from bluetoothd (object tree changes, adapter and device properties).
    package mutating func received(_ signal: BlueZSignal, at now: Duration) -> [Action] {
        var actions: [Action] = []
        if case .propertiesChanged(let path, BlueZNames.device, let changed, _) = signal,
            path.isDescendant(of: settings.adapterPath),
            changed["Paired"]?.unwrappingVariants.boolValue == true, pairingClosesAt != nil
        {
            // The first successful bond closes the window.
            actions += closePairingWindow()
        }
        if progress == .inFlight(.discover) {
            pendingSignals.append(signal)
            return actions
        }
        guard discovered else { return actions }
        let wasReady = adapterReady
        guard adapter.apply(signal, adapterPath: settings.adapterPath) else { return actions }
        noteAdapterProblem()
        if wasReady && !adapterReady {
            // Powered off or an interface gone: bluetoothd's registrations are no longer on air.
            round += 1
            completed = completed.intersection([.agent])
            progress = .idle
            failures = 0
        } else if !wasReady && adapterReady {
            actions += advance(at: now)
        }
        return actions
    }

    package mutating func stepSucceeded(_ step: Step, round: UInt64, at now: Duration) -> [Action] {
        guard round == self.round, progress == .inFlight(step) else { return [] }
        completed.insert(step)
        if step == .advertisement { registrations += 1 }
        failures = 0
        progress = .idle
        lastProblem = nil
        return advance(at: now)
    }

    /// A step's call failed. `AlreadyExists` from a register call means bluetoothd still has it from before
    /// (a power cycle keeps registrations): that is success.
    package mutating func stepFailed(_ step: Step, round: UInt64, error: DBusError, at now: Duration) -> [Action] {
        guard round == self.round, progress == .inFlight(step) else { return [] }
        if error.kind == .bluez(.alreadyExists), [.agent, .application, .advertisement].contains(step) {
            return stepSucceeded(step, round: round, at: now)
        }
        failures += 1
        let until = now + settings.backoff.delay(afterFailures: failures)
        progress = .waiting(step, until: until)
        lastProblem = "\(step.rawValue) failed (\(error)); retrying in \(describe(until - now))"
        return []
    }

    /// bluetoothd called the advertisement's `Release`: it no longer advertises it. Register it again after a
    /// backoff that grows with each release in this bluetoothd's lifetime, so a bluetoothd that keeps releasing
    /// it cannot drive a tight loop.
    package mutating func advertisementReleased(at now: Duration) -> [Action] {
        guard completed.contains(.advertisement) else { return [] }
        completed.remove(.advertisement)
        releases += 1
        lastProblem = "bluetoothd released the advertisement"
        guard progress == .idle else { return [] }
        progress = .waiting(.advertisement, until: now + settings.backoff.delay(afterFailures: releases))
        return []
    }

    /// The shell's timer fired (possibly early or late: only what is due happens).
    package mutating func timerFired(at now: Duration) -> [Action] {
        var actions: [Action] = []
        if let closes = pairingClosesAt, now >= closes { actions += closePairingWindow() }
        if case .waiting(_, let until) = progress, now >= until {
            progress = .idle
            actions += advance(at: now)
        }
        return actions
    }

    /// When the shell's timer must fire next (a retry or the end of a pairing window); nil: nothing is due.
    package var nextDeadline: Duration? {
        var deadlines: [Duration] = []
        if case .waiting(_, let until) = progress { deadlines.append(until) }
        if let closes = pairingClosesAt { deadlines.append(closes) }
        return deadlines.min()
    }

    // MARK: Pairing window

    /// Opens (or extends) the pairing window for `requested`, at most `maximumPairingWindow`. Returns when it
    /// closes and what to do: make the adapter pairable (if it is set up now; otherwise the policy step does it
    /// when it runs) and the advertisement discoverable.
    package mutating func openPairingWindow(
        for requested: Duration, at now: Duration
    ) -> (
        closesAt: Duration, actions: [Action]
    ) {
        let length = min(max(requested, .seconds(1)), settings.maximumPairingWindow)
        let closesAt = now + length
        pairingClosesAt = closesAt
        var actions: [Action] = []
        if adapterReady && completed.contains(.adapterPolicy) {
            actions.append(.setPairable(true, timeoutSeconds: Self.wholeSeconds(length)))
        }
        actions.append(.announceDiscoverable(true))
        return (closesAt, actions)
    }

    /// Whether the agent may accept a pairing now: only inside an open window.
    package func authorizesPairing(at now: Duration) -> Bool {
        guard let closes = pairingClosesAt else { return false }
        return now < closes
    }

    /// Whether the advertisement says "discoverable" (only while a pairing window is open).
    package var advertisesDiscoverable: Bool { pairingClosesAt != nil }

    private mutating func closePairingWindow() -> [Action] {
        guard pairingClosesAt != nil else { return [] }
        pairingClosesAt = nil
        var actions: [Action] = []
        if adapterReady && completed.contains(.adapterPolicy) {
            actions.append(.setPairable(false, timeoutSeconds: 0))
        }
        actions.append(.announceDiscoverable(false))
        return actions
    }

    // MARK: Notify sessions

    /// bluetoothd calls `StartNotify` when the first device enables notifications. Only the current owner of
    /// `org.bluez` may; repeated calls keep one session (a storm neither leaks nor double-counts).
    package mutating func startNotify(from sender: String) -> Result<Void, DBusError> {
        startNotifyCalls &+= 1
        guard let owner = bluezOwner, sender == owner else {
            return .failure(.bluez(.notAuthorized, "StartNotify is for bluetoothd (the owner of org.bluez) only"))
        }
        notifySession = sender
        return .success(())
    }

    package mutating func stopNotify(from sender: String) -> Result<Void, DBusError> {
        guard let owner = bluezOwner, sender == owner else {
            return .failure(.bluez(.notAuthorized, "StopNotify is for bluetoothd (the owner of org.bluez) only"))
        }
        notifySession = nil
        return .success(())
    }

    package var isNotifying: Bool { notifySession != nil }

    // MARK: Facts

    package func facts(at now: Duration) -> PeripheralFacts {
        PeripheralFacts(
            bluezRunning: ownerKnown ? bluezOwner != nil : nil,
            adapterPresent: discovered ? adapter.isPresent : nil,
            powered: discovered && adapter.isPresent ? adapter.powered : nil,
            address: adapter.address,
            gattRegistered: completed.contains(.application),
            advertising: completed.contains(.advertisement),
            agentRegistered: completed.contains(.agent),
            wakeSubscriber: notifySession != nil,
            pairingClosesIn: pairingClosesAt.map { max($0 - now, .zero) },
            startNotifyCalls: startNotifyCalls,
            registrations: registrations,
            problem: lastProblem)
    }

    /// The adapter's address as last reported (for the advertised name and identity).
    package var adapterAddress: String? { adapter.address }

    // MARK: Internals

    private var adapterReady: Bool {
        adapter.interfaces.isSuperset(of: BlueZNames.peripheralAdapterInterfaces) && adapter.powered
    }

    private mutating func advance(at now: Duration) -> [Action] {
        guard bluezOwner != nil, progress == .idle else { return [] }
        guard discovered else {
            progress = .inFlight(.discover)
            return [.discover(round: round)]
        }
        guard adapterReady, let step = nextStep else { return [] }
        progress = .inFlight(step)
        switch step {
        case .discover:
            return [.discover(round: round)]
        case .adapterPolicy:
            let remaining = pairingClosesAt.map { max($0 - now, .zero) }
            return [
                .applyAdapterPolicy(
                    round: round, pairable: remaining != nil,
                    pairableTimeoutSeconds: remaining.map(Self.wholeSeconds) ?? 0)
            ]
        case .agent:
            return [.registerAgent(round: round)]
        case .application:
            return [.registerApplication(round: round)]
        case .advertisement:
            return [.registerAdvertisement(round: round)]
        }
    }

    private var nextStep: Step? {
        [Step.adapterPolicy, .agent, .application, .advertisement].first { !completed.contains($0) }
    }

    private mutating func noteAdapterProblem() {
        let name = settings.adapterPath.rawValue.split(separator: "/").last.map(String.init) ?? "adapter"
        if !adapter.isPresent {
            lastProblem = "adapter \(name) is not in bluetoothd's object tree"
        } else if !adapter.interfaces.isSuperset(of: BlueZNames.peripheralAdapterInterfaces) {
            let missing = BlueZNames.peripheralAdapterInterfaces.subtracting(adapter.interfaces).sorted()
            lastProblem = "adapter \(name) has no \(missing.joined(separator: ", ")) yet"
        } else if !adapter.powered {
            lastProblem = "adapter \(name) is powered off"
        } else if lastProblem?.hasPrefix("adapter ") == true {
            lastProblem = nil
        }
    }

    /// Whole seconds, rounded up (a timeout must not end before the window does).
    static func wholeSeconds(_ duration: Duration) -> UInt32 {
        let (seconds, attoseconds) = duration.components
        let whole = seconds + (attoseconds > 0 ? 1 : 0)
        return UInt32(clamping: max(whole, 0))
    }

    private func describe(_ duration: Duration) -> String {
        let milliseconds = duration.components.seconds * 1000 + duration.components.attoseconds / 1_000_000_000_000_000
        return milliseconds % 1000 == 0 ? "\(milliseconds / 1000) s" : "\(milliseconds) ms"
    }
}
