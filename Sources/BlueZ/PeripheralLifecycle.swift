import DBusModel

/// The board peripheral's life with bluetoothd, as a pure state machine: events in (bus signals, call results,
/// time), actions out (calls to make). No I/O and no clock: `now` is a monotonic time from any fixed origin.
///
/// The flow (docs/protocol.md §2.1): once `org.bluez` has an owner, read its object tree (`GetManagedObjects`); once
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
        /// The longest a pairing window stays open, counted from when it opened, however often it is extended
        /// (300 s).
        package var maximumPairingWindow: Duration
        /// The shortest pause between one pairing window and the next (10 s); see `openPairingWindow`.
        package var minimumPairingCooldown: Duration

        package init(
            adapterPath: DBusObjectPath, backoff: Backoff = Backoff(base: .seconds(1), cap: .seconds(30)),
            maximumPairingWindow: Duration = .seconds(300), minimumPairingCooldown: Duration = .seconds(10)
        ) {
            self.adapterPath = adapterPath
            self.backoff = backoff
            self.maximumPairingWindow = maximumPairingWindow
            self.minimumPairingCooldown = minimumPairingCooldown
        }
    }

    /// What became of a request to open the pairing window, relative to the `now` it was asked at.
    package enum PairingAnswer: Sendable, Equatable {
        /// The window is open (new, or the open one, extended at most to its limit) and closes in this long.
        case open(closesIn: Duration)
        /// Refused: the cool-down after the last window ends in this long.
        case coolingDown(retryIn: Duration)
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
        /// `Adapter1.RemoveDevice(device)` (DoesNotExist ignored): the board's stale half of a bond with the phone
        /// that asks to pair again (it has lost its own half, or it would not ask).
        case forgetDevice(DBusObjectPath)
        /// The advertisement's `Discoverable` changed: emit `PropertiesChanged` (bluetoothd re-reads it).
        case announceDiscoverable(Bool)
    }

    /// An open pairing window: its limit counts from `openedAt`.
    private struct PairingWindow: Sendable, Equatable {
        var openedAt: Duration
        var closesAt: Duration
        /// The phone host the window was opened for (it named its adapter): only that device may pair. nil:
        /// opened without a name (the manual route), any device may.
        var phone: DBusObjectPath?
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
    private var pairingWindow: PairingWindow?
    /// When the cool-down after the last pairing window ends (nil: none ran yet, or it ended).
    private var pairingCooldownEnds: Duration?
    private var notifySession: String?
    private var startNotifyCalls: UInt64 = 0
    private var registrations: UInt64 = 0
    private var releases = 0

    package init(settings: Settings) {
        self.settings = settings
    }

    /// The unique name that owns `org.bluez` (nil: nobody, or not known yet).
    package var bluezOwnerName: String? { bluezOwner }

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
            changed["Paired"]?.unwrappingVariants.boolValue == true, pairingWindow != nil
        {
            // The first successful bond closes the window.
            actions += closePairingWindow(at: now)
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
        if let window = pairingWindow, now >= window.closesAt { actions += closePairingWindow(at: window.closesAt) }
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
        if let window = pairingWindow { deadlines.append(window.closesAt) }
        return deadlines.min()
    }

    // MARK: Pairing window

    /// Opens the pairing window for `requested` (1 s…`maximumPairingWindow`), or extends the open one, and says
    /// when it closes or, when none may open yet, when one may. Makes the adapter pairable (if it is set up now;
    /// otherwise the policy step does it when it runs) and the advertisement discoverable.
    ///
    /// The rules keep the board from being pairable for good, whoever asks and however often:
    /// - An open window may be extended to `now + requested`, never past `maximumPairingWindow` (300 s) after it
    ///   first opened, and is never shortened. At its limit a request changes nothing and gets when it closes.
    /// - After a window closes (time up, or the first bond), the next may open only once the board has been
    ///   closed as long as that window was open, and at least `minimumPairingCooldown` (10 s). A cool-down as long
    ///   as the window bounds the time the board is pairable to half, whatever the cable asks; a window closed by
    ///   a bond after a few seconds costs a retry only the 10 s, which also gives bluetoothd time to apply
    ///   `Pairable=false` and the advertisement to go non-discoverable on air before the next one. A client that
    ///   asks for a short window waits little. A fixed rate (N windows an hour) would refuse the retries of a
    ///   client whose pairing failed, however short its windows were.
    ///
    /// `forgetting`: the Bluetooth address of the phone host that asks (it names its own adapter); a bond the
    /// board still holds with it is removed when the window opens, because a phone that asks to pair has none,
    /// and the board's stale half would make the pairing fail (it asks the phone for security at once, in the
    /// middle of the phone's own pairing).
    package mutating func openPairingWindow(
        for requested: Duration, forgetting phone: String? = nil, at now: Duration
    ) -> (
        answer: PairingAnswer, actions: [Action]
    ) {
        let (answer, actions) = openOrExtendPairingWindow(for: requested, at: now)
        guard case .open = answer, let phone, let device = Self.devicePath(phone, under: settings.adapterPath) else {
            return (answer, actions)
        }
        pairingWindow?.phone = device
        return (answer, [.forgetDevice(device)] + actions)
    }

    /// `/org/bluez/hci0/dev_AA_BB_CC_DD_EE_FF` for `AA:BB:CC:DD:EE:FF` (nil for anything else).
    static func devicePath(_ address: String, under adapter: DBusObjectPath) -> DBusObjectPath? {
        let groups = address.uppercased().split(separator: ":", omittingEmptySubsequences: false)
        guard groups.count == 6,
            groups.allSatisfy({ $0.utf8.count == 2 && $0.unicodeScalars.allSatisfy(\.properties.isASCIIHexDigit) })
        else { return nil }
        return adapter.appending("dev_" + groups.joined(separator: "_"))
    }

    private mutating func openOrExtendPairingWindow(
        for requested: Duration, at now: Duration
    ) -> (
        answer: PairingAnswer, actions: [Action]
    ) {
        var actions: [Action] = []
        // The timer may not have fired yet: a window past its end is closed, and its cool-down counts from then.
        if let window = pairingWindow, now >= window.closesAt { actions += closePairingWindow(at: window.closesAt) }
        let length = min(max(requested, .seconds(1)), settings.maximumPairingWindow)
        if var window = pairingWindow {
            let closesAt = min(max(window.closesAt, now + length), window.openedAt + settings.maximumPairingWindow)
            if closesAt != window.closesAt {
                window.closesAt = closesAt
                pairingWindow = window
                if adapterReady && completed.contains(.adapterPolicy) {
                    actions.append(.setPairable(true, timeoutSeconds: Self.wholeSeconds(closesAt - now)))
                }
            }
            return (.open(closesIn: closesAt - now), actions)
        }
        if let ends = pairingCooldownEnds, now < ends { return (.coolingDown(retryIn: ends - now), actions) }
        pairingCooldownEnds = nil
        pairingWindow = PairingWindow(openedAt: now, closesAt: now + length)
        if adapterReady && completed.contains(.adapterPolicy) {
            actions.append(.setPairable(true, timeoutSeconds: Self.wholeSeconds(length)))
        }
        actions.append(.announceDiscoverable(true))
        return (.open(closesIn: length), actions)
    }

    /// Whether the agent may accept a pairing now: only inside an open window.
    /// Whether the agent may accept a pairing of `device` now: only inside an open window, and, when the window
    /// was opened for a named phone host, only for that device (a stranger nearby cannot take the window).
    package func authorizesPairing(of device: DBusObjectPath? = nil, at now: Duration) -> Bool {
        guard let window = pairingWindow, now < window.closesAt else { return false }
        guard let phone = window.phone else { return true }
        return device == phone
    }

    /// Whether the advertisement says "discoverable" (only while a pairing window is open).
    package var advertisesDiscoverable: Bool { pairingWindow != nil }

    /// Closes the window as of `closedAt` (its end, or the bond) and starts the cool-down from there.
    private mutating func closePairingWindow(at closedAt: Duration) -> [Action] {
        guard let window = pairingWindow else { return [] }
        pairingWindow = nil
        pairingCooldownEnds = closedAt + max(closedAt - window.openedAt, settings.minimumPairingCooldown)
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
            pairingClosesIn: pairingWindow.map { max($0.closesAt - now, .zero) },
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
            let remaining = pairingWindow.map { max($0.closesAt - now, .zero) }
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
