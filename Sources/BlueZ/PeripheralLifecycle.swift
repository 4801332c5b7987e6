import DBusModel
import NetworkAddress
import Retry
import WireFormat

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
        /// How long a new window may take to get ready (the stale bond forgotten, the adapter pairable) before
        /// it is given up and closed (2.5 s: the phone's request over the cable gives up after 3 s and asks
        /// again, and bluetoothd answers both calls in milliseconds).
        package var pairingPreparationTimeout: Duration

        package init(
            adapterPath: DBusObjectPath, backoff: Backoff = Backoff(base: .seconds(1), cap: .seconds(30)),
            maximumPairingWindow: Duration = .seconds(300), minimumPairingCooldown: Duration = .seconds(10),
            pairingPreparationTimeout: Duration = .milliseconds(2500)
        ) {
            self.adapterPath = adapterPath
            self.backoff = backoff
            self.maximumPairingWindow = maximumPairingWindow
            self.minimumPairingCooldown = minimumPairingCooldown
            self.pairingPreparationTimeout = pairingPreparationTimeout
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
        /// A pairing window opened, was extended or closed while the adapter is set up: `Pairable` (with
        /// `PairableTimeout` first when true); answer `pairableSet`. One at a time: the next waits for the answer.
        case setPairable(Bool, timeoutSeconds: UInt32, round: UInt64)
        /// `Adapter1.RemoveDevice(device)`; answer `deviceForgotten` (DoesNotExist counts as done). Either the
        /// board's stale half of a bond with the phone that asks to pair again (it has lost its own half, or it
        /// would not ask), removed before the window answers "open"; or a device the window did not name that
        /// bonded all the same (bluetoothd let it through without asking the agent): it keeps no bond.
        case forgetDevice(DBusObjectPath, round: UInt64)
        /// The answer to the pairing request the shell numbered `request` (`openPairingWindow`), once the window
        /// is ready or given up.
        case answerPairing(request: UInt64, PairingOutcome)
        /// The advertisement's `Discoverable` changed: emit `PropertiesChanged` (bluetoothd re-reads it).
        case announceDiscoverable(Bool)
    }

    /// An open pairing window: its limit counts from `openedAt`.
    ///
    /// A new window is not ready at once: it answers "open" only once bluetoothd confirmed that the stale bond
    /// is gone (`forgetting` answered) and the adapter is pairable, so that the phone's `Pair` can never race a
    /// `RemoveDevice` the window started (which would take the new bond with it) or an adapter not pairable
    /// yet. Until then nobody may pair, and the requests wait in `waiting`.
    private struct PairingWindow: Sendable, Equatable {
        var openedAt: Duration
        var closesAt: Duration
        /// The phone host the window was opened for (it named its adapter): only that device may pair. nil:
        /// opened without a name (the manual route), any device may.
        var phone: DBusObjectPath?
        /// Answered "open": pairing may go on.
        var ready = false
        /// The `RemoveDevice` of the phone's stale bond, until bluetoothd answers it.
        var forgetting: DBusObjectPath?
        /// Requests (numbered by the shell) to answer once the window is ready or given up.
        var waiting: [UInt64] = []
        /// When an unready window is given up.
        var prepareBy: Duration
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
    /// `Pairable` as bluetoothd last confirmed it in this round (nil: unknown).
    private var pairableConfirmed: Bool?
    /// The value of the `Pairable` call in flight (nil: none), and the one the adapter-policy step sets.
    private var pairableCall: Bool?
    private var policyPairable = false
    /// An extended window wants its `PairableTimeout` sent again.
    private var pairableTimeoutStale = false
    /// Devices under the adapter that bluetoothd says are `Paired` (from the tree and its signals).
    private var bondedDevices: Set<DBusObjectPath> = []
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
        // Calls a window made to the bluetoothd that left are lost with it; one that was not there yet had none.
        let lostCalls = bluezOwner != nil
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
        pairableConfirmed = nil
        pairableCall = nil
        bondedDevices = []
        lastProblem = owner == nil ? "bluetoothd (org.bluez) is not on the bus" : nil
        let givenUp =
            lostCalls ? giveUpUnreadyWindow("bluetoothd restarted while the window was being opened", at: now) : []
        return givenUp + advance(at: now)
    }

    /// The answer to `discover`: bluetoothd's whole object tree.
    package mutating func discovered(_ objects: DBusManagedObjects, round: UInt64, at now: Duration) -> [Action] {
        guard round == self.round, progress == .inFlight(.discover) else { return [] }
        adapter = AdapterState(path: settings.adapterPath, in: objects)
        bondedDevices = Set(
            objects.compactMap { path, interfaces in
                guard path.isDescendant(of: settings.adapterPath),
                    interfaces[BlueZNames.device]?["Paired"]?.unwrappingVariants.boolValue == true
                else { return nil }
                return path
            })
        for signal in pendingSignals {
            adapter.apply(signal, adapterPath: settings.adapterPath)
            trackBond(signal)
        }
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
            changed["Paired"]?.unwrappingVariants.boolValue == true, let window = pairingWindow
        {
            if window.ready && (window.phone == nil || window.phone == path) {
                // The first bond of the device the window is for closes it.
                actions += closePairingWindow(at: now)
            } else {
                // Bonded though the window was not for it (or not ready): bluetoothd let it through without
                // asking the agent (a Just Works pairing the kernel accepts by itself). Fail closed: the board
                // keeps no such bond, and the window stays for the phone it was opened for.
                lastProblem = "\(path.rawValue) bonded inside a pairing window that was not for it: forgetting it"
                actions.append(.forgetDevice(path, round: round))
            }
        }
        if progress == .inFlight(.discover) {
            pendingSignals.append(signal)
            return actions
        }
        guard discovered else { return actions }
        trackBond(signal)
        let wasReady = adapterReady
        guard adapter.apply(signal, adapterPath: settings.adapterPath) else { return actions }
        noteAdapterProblem()
        if wasReady && !adapterReady {
            // Powered off or an interface gone: bluetoothd's registrations are no longer on air.
            round += 1
            completed = completed.intersection([.agent])
            progress = .idle
            failures = 0
            pairableConfirmed = nil
            pairableCall = nil
            actions += giveUpUnreadyWindow("the adapter went away while the window was being opened", at: now)
        } else if !wasReady && adapterReady {
            actions += advance(at: now)
        }
        return actions
    }

    package mutating func stepSucceeded(_ step: Step, round: UInt64, at now: Duration) -> [Action] {
        guard round == self.round, progress == .inFlight(step) else { return [] }
        completed.insert(step)
        if step == .advertisement { registrations += 1 }
        if step == .adapterPolicy { pairableConfirmed = policyPairable }
        failures = 0
        progress = .idle
        lastProblem = nil
        var actions = advance(at: now)
        if step == .adapterPolicy { actions = syncPairable(at: now) + windowReadiness(at: now) + actions }
        return actions
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

    /// The answer to `setPairable` in `round` (`error` nil: done).
    package mutating func pairableSet(round: UInt64, error: DBusError?, at now: Duration) -> [Action] {
        guard round == self.round, let sent = pairableCall else { return [] }
        pairableCall = nil
        guard let error else {
            pairableConfirmed = sent
            return windowReadiness(at: now) + syncPairable(at: now)
        }
        // Unknown now; the next change of the window sends it again.
        pairableConfirmed = nil
        lastProblem = "setting Pairable=\(sent) failed (\(error))"
        return giveUpUnreadyWindow("the adapter could not be made pairable: \(error)", at: now)
    }

    /// The answer to `forgetDevice(device)` in `round` (`error` nil or `DoesNotExist`: no bond with it is left).
    /// A stale bond that could not be forgotten keeps the window from opening: the phone's pairing would fail
    /// against it.
    package mutating func deviceForgotten(
        _ device: DBusObjectPath, round: UInt64, error: DBusError?, at now: Duration
    ) -> [Action] {
        guard round == self.round, var window = pairingWindow, !window.ready, window.forgetting == device else {
            return []
        }
        if let error, error.kind != .bluez(.doesNotExist) {
            return giveUpUnreadyWindow(
                "the board's stale bond with the phone could not be forgotten: \(error)", at: now)
        }
        window.forgetting = nil
        pairingWindow = window
        return windowReadiness(at: now)
    }

    /// Follows which devices bluetoothd holds a bond with.
    private mutating func trackBond(_ signal: BlueZSignal) {
        switch signal {
        case .interfacesAdded(let path, let interfaces) where path.isDescendant(of: settings.adapterPath):
            if let paired = interfaces[BlueZNames.device]?["Paired"]?.unwrappingVariants.boolValue {
                if paired { bondedDevices.insert(path) } else { bondedDevices.remove(path) }
            }
        case .interfacesRemoved(let path, let removed) where removed.contains(BlueZNames.device):
            bondedDevices.remove(path)
        case .propertiesChanged(let path, BlueZNames.device, let changed, _)
        where path.isDescendant(of: settings.adapterPath):
            if let paired = changed["Paired"]?.unwrappingVariants.boolValue {
                if paired { bondedDevices.insert(path) } else { bondedDevices.remove(path) }
            }
        default:
            break
        }
    }

    /// The shell's timer fired (possibly early or late: only what is due happens).
    package mutating func timerFired(at now: Duration) -> [Action] {
        var actions: [Action] = []
        if let window = pairingWindow, !window.ready, now >= window.prepareBy, window.prepareBy < window.closesAt {
            actions += giveUpUnreadyWindow(unreadyReason(window), at: now)
        }
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
        if let window = pairingWindow, !window.ready { deadlines.append(window.prepareBy) }
        return deadlines.min()
    }

    // MARK: Pairing window

    /// Opens the pairing window for `requested` (1 s…`maximumPairingWindow`), or extends the open one, and says
    /// when it closes or, when none may open yet, when one may. A new window answers only once it is ready:
    /// the answer is nil then, and comes later as `answerPairing(request:)` (at most
    /// `pairingPreparationTimeout` later: `.open`, or `.failed` and the window closed again).
    ///
    /// Ready means: bluetoothd confirmed `Pairable=true` (set now if the adapter is set up, else by the policy
    /// step when it runs), and, for a window `forgetting` a phone, answered the `RemoveDevice` of the board's
    /// stale half of a bond with it. The phone pairs only after the answer, so nothing the window started can
    /// still be under way when it pairs: a `RemoveDevice` that completed after the new bond would take it with
    /// it. For the same reason the advertisement turns discoverable first, before those calls: bluetoothd
    /// rebuilds an advertisement to change it (the advertising set is off meanwhile), and that must be over
    /// before the phone's `Pair` looks for the board. Announced once the window was ready, the rebuild raced the
    /// `Pair`; with one bluetoothd for both ends (the real-stack scenario) its second half waited in bluetoothd's
    /// management queue behind the pairing, which waited for the board to advertise, until the phone gave up.
    ///
    /// The rules keep the board from being pairable for good, whoever asks and however often:
    /// - An open window may be extended to `now + requested`, never past `maximumPairingWindow` (300 s) after it
    ///   first opened, and is never shortened. At its limit a request changes nothing and gets when it closes.
    /// - After a window closes (time up, the first bond, or given up), the next may open only once the board has
    ///   been closed as long as that window was open, and at least `minimumPairingCooldown` (10 s). A cool-down
    ///   as long as the window bounds the time the board is pairable to half, whatever the cable asks; a window
    ///   closed by a bond after a few seconds costs a retry only the 10 s, which also gives bluetoothd time to
    ///   apply `Pairable=false` and the advertisement to go non-discoverable on air before the next one. A client
    ///   that asks for a short window waits little. A fixed rate (N windows an hour) would refuse the retries of
    ///   a client whose pairing failed, however short its windows were.
    ///
    /// `forgetting`: the Bluetooth address of the phone host that asks (it names its own adapter); only that
    /// device may pair in the window, and a bond the board still holds with it is removed before the window
    /// answers, because a phone that asks to pair has none, and the board's stale half would make the pairing
    /// fail (it asks the phone for security at once, in the middle of the phone's own pairing). An extension
    /// forgets nothing: a bond made inside the window stays.
    ///
    /// `unlessBonded`: the phone still holds its half of a bond and asks because its links fail. The board's
    /// word decides whether that bond is lost: while bluetoothd says the board holds a bond with that phone,
    /// the answer is `.bondKept` and no window opens (so nobody in radio range can make the phone drop a
    /// working bond by making its links fail); otherwise the window opens as for a phone without a bond.
    package mutating func openPairingWindow(
        for requested: Duration, forgetting phone: String? = nil, unlessBonded: Bool = false, request: UInt64 = 0,
        at now: Duration
    ) -> (
        answer: PairingOutcome?, actions: [Action]
    ) {
        var actions: [Action] = []
        // The timer may not have fired yet: a window past its end is closed, and its cool-down counts from then.
        if let window = pairingWindow, now >= window.closesAt { actions += closePairingWindow(at: window.closesAt) }
        if unlessBonded {
            guard let device = phone.flatMap({ Self.devicePath($0, under: settings.adapterPath) }) else {
                return (.failed("a phone that asks whether its bond is lost must name its address"), actions)
            }
            guard discovered else {
                return (.failed("bluetoothd's devices are not known yet: the board cannot tell"), actions)
            }
            if bondedDevices.contains(device) { return (.bondKept, actions) }
        }
        let length = min(max(requested, .seconds(1)), settings.maximumPairingWindow)
        if var window = pairingWindow {
            let closesAt = min(max(window.closesAt, now + length), window.openedAt + settings.maximumPairingWindow)
            if closesAt != window.closesAt {
                window.closesAt = closesAt
                pairableTimeoutStale = true
            }
            guard window.ready else {
                window.waiting.append(request)
                pairingWindow = window
                return (nil, actions)
            }
            pairingWindow = window
            return (.open(closesIn: closesAt - now), actions + syncPairable(at: now))
        }
        if let ends = pairingCooldownEnds, now < ends { return (.coolingDown(retryIn: ends - now), actions) }
        pairingCooldownEnds = nil
        let device = phone.flatMap { Self.devicePath($0, under: settings.adapterPath) }
        pairingWindow = PairingWindow(
            openedAt: now, closesAt: now + length, phone: device, forgetting: device, waiting: [request],
            prepareBy: now + settings.pairingPreparationTimeout)
        actions.append(.announceDiscoverable(true))
        if let device { actions.append(.forgetDevice(device, round: round)) }
        return (nil, actions + syncPairable(at: now))
    }

    /// `/org/bluez/hci0/dev_AA_BB_CC_DD_EE_FF` for `AA:BB:CC:DD:EE:FF`, in either case (nil for anything else).
    static func devicePath(_ address: String, under adapter: DBusObjectPath) -> DBusObjectPath? {
        BluetoothAddress(address).map { adapter.appending($0.devicePathComponent) }
    }

    /// Whether the agent may accept a pairing of `device` asked by `sender` now: only bluetoothd (the current
    /// owner of `org.bluez`) may ask, only inside an open window that is ready, and, when the window was opened
    /// for a named phone host, only for that device (a stranger nearby cannot take the window).
    package func authorizesPairing(of device: DBusObjectPath?, askedBy sender: String?, at now: Duration) -> Bool {
        guard let sender, sender == bluezOwner else { return false }
        guard let window = pairingWindow, window.ready, now < window.closesAt else { return false }
        guard let phone = window.phone else { return true }
        return device == phone
    }

    /// Whether the advertisement says "discoverable": while a pairing window is open, from the moment it was
    /// asked for (`openPairingWindow` says why not only once it is ready). Nobody may pair before it is ready
    /// all the same: the agent refuses (`authorizesPairing`).
    package var advertisesDiscoverable: Bool { pairingWindow != nil }

    /// Closes the window as of `closedAt` (its end, the bond, or given up) and starts the cool-down from there;
    /// requests still waiting for it are told it closed.
    private mutating func closePairingWindow(at closedAt: Duration) -> [Action] {
        guard let window = pairingWindow else { return [] }
        pairingWindow = nil
        pairingCooldownEnds = closedAt + max(closedAt - window.openedAt, settings.minimumPairingCooldown)
        var actions = window.waiting.map {
            Action.answerPairing(request: $0, .failed("the pairing window closed before it was ready"))
        }
        actions += syncPairable(at: closedAt)
        actions.append(.announceDiscoverable(false))
        return actions
    }

    /// Gives up a window that is not ready yet: every waiting request hears `why`, and it closes.
    private mutating func giveUpUnreadyWindow(_ why: String, at now: Duration) -> [Action] {
        guard var window = pairingWindow, !window.ready else { return [] }
        let answers = window.waiting.map { Action.answerPairing(request: $0, .failed(why)) }
        window.waiting = []
        pairingWindow = window
        lastProblem = "pairing window given up: \(why)"
        return answers + closePairingWindow(at: now)
    }

    private func unreadyReason(_ window: PairingWindow) -> String {
        if let device = window.forgetting {
            return "bluetoothd did not answer the removal of the stale bond with \(device.rawValue) in time"
        }
        return "bluetoothd did not make the adapter pairable in time"
    }

    /// A window that waited only for bluetoothd is ready once the stale bond is gone and `Pairable` is confirmed
    /// true (with no `Pairable=false` in flight): every waiting request hears "open" (the advertisement already
    /// says discoverable).
    private mutating func windowReadiness(at now: Duration) -> [Action] {
        guard var window = pairingWindow, !window.ready, window.forgetting == nil, now < window.closesAt,
            pairableConfirmed == true, pairableCall != false
        else { return [] }
        window.ready = true
        let answers = window.waiting.map { Action.answerPairing(request: $0, .open(closesIn: window.closesAt - now)) }
        window.waiting = []
        pairingWindow = window
        return answers
    }

    /// Sends `Pairable` when it differs from what the window wants (true while one is open, with its timeout),
    /// one call at a time: a later call never overtakes an earlier one on the bus. Before the adapter-policy
    /// step has run, that step sets it.
    private mutating func syncPairable(at now: Duration) -> [Action] {
        guard adapterReady, completed.contains(.adapterPolicy), pairableCall == nil else { return [] }
        let wanted = pairingWindow != nil
        guard wanted != pairableConfirmed || (wanted && pairableTimeoutStale) else { return [] }
        pairableCall = wanted
        pairableTimeoutStale = false
        let timeout = pairingWindow.map { Self.wholeSeconds(max($0.closesAt - now, .zero)) } ?? 0
        return [.setPairable(wanted, timeoutSeconds: timeout, round: round)]
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
            pairingClosesIn: pairingWindow.flatMap { $0.ready ? max($0.closesAt - now, .zero) : nil },
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
            policyPairable = remaining != nil
            pairableTimeoutStale = false
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
