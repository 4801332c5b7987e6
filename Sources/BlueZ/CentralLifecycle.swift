import DBusModel
import NetworkAddress
import Retry

/// The phone's Wake central as a pure state machine: events in (bluetoothd's signals, call results, time),
/// actions out (calls to make, values to deliver, state to report). No I/O, no clock.
///
/// The flow: once `org.bluez` has an owner, read its tree; with the adapter present and powered, search
/// (discovery filtered on the Wake service UUID, LE, only while searching); connect to the first board seen
/// (by UUID, or by the configured address); wait for `ServicesResolved`; find the Wake characteristic under
/// the device; `StartNotify` once per connection (again, after a pause, only when bluetoothd refused to register the
/// session while busy on the link); read the value once (it echoes the last Wake, the
/// phone's wake filter drops the duplicate); then deliver each 12-byte `Value` change. A drop or failure
/// reconnects after a doubling backoff; a refused bond becomes `bondLost` and is retried slowly; a link that
/// drops while subscribing to a board this host has no bond with becomes `notBonded` and is retried slowly
/// too (the board refuses to pair outside its pairing window and drops the link: retrying fast would only
/// churn the radio); either is retried at once when the device becomes `Paired`; bluetoothd restarting or
/// the adapter power-cycling starts everything over.
///
/// With `bondsOverCable` the USB cable is the trust anchor and bonding is automatic
/// (`CentralLifecycle+Bonding.swift`): a board this host has no bond with is paired before the link is
/// made, through the pairing window the board opens when asked over the cable, with the address the board
/// names over the cable; a board that forgot the bond has the stale one removed and is paired again.
package struct CentralLifecycle: Sendable {
    package struct Settings: Sendable, Equatable {
        package var adapter: String
        /// The board's address (`[wake] address`); nil: the first device advertising the Wake service.
        package var boardAddress: String?
        package var backoff: Backoff
        /// How long a bond-lost board waits between attempts (no tight loop: the user must pair again).
        package var bondLostRetry: Duration
        /// How long a board this host is not bonded with waits between attempts (shorter than `bondLostRetry`:
        /// a board whose Wake characteristic needs no encryption may just have dropped the link).
        package var notBondedRetry: Duration
        /// How long after `Connect` succeeds the services may take to resolve.
        package var resolveTimeout: Duration
        /// Whether the shell can ask the board over the USB cable to open its pairing window (and name its
        /// address), and pair with an agent of its own: a board without a bond is then paired automatically.
        package var bondsOverCable: Bool
        /// The board this host bonded with before (kept by the phone in its state directory); followed when no
        /// address is configured, until the cable names another board.
        package var rememberedAddress: String?
        /// How long a failed automatic bond waits before the next try; a cable that comes back tries at once.
        package var bondRetry: Duration
        /// How many automatic bonds in a row (started since the last working link) may end with the board
        /// refusing the link before the central stops removing and re-making bonds and waits `bondLostRetry`,
        /// as without the cable.
        package var bondAttempts: Int
        /// How many links in a row to a bonded board may fail before they were usable, for no stated reason
        /// (`unusableLink`: a failed `Connect`, a drop or a resolve timeout before the subscription), before
        /// bonding over the cable suspects a lost bond and asks the board (other failures, such as a board daemon
        /// restarting and its Wake characteristic missing for a moment, do not count). A board that forgot the
        /// bond does not say so: the encryption with this host's stale key fails, and bluetoothd reports only
        /// `le-connection-abort-by-local`, or a link that drops or never resolves. Only the board's word drops the bond, so asking is harmless and costs
        /// one request over the cable: 1, at the first failure (three, each after a scan and a longer backoff,
        /// kept a person whose board was reset waiting up to 105 s on the real stack).
        package var suspectBondAfter: Int
        /// How many times one open window is tried with `Pair` (a board may turn pairable a moment after it
        /// answered, a radio may miss a connection), and the pause between tries.
        package var pairTries: Int
        package var pairPause: Duration
        /// How long one `Pair` may go unanswered with no link to the board before this central cancels it and
        /// tries again (5 s). In 20 first bonds in a row on the real stack a pairing that was answered took 0.4
        /// to 0.9 s; one that stalls (no connection made) is never answered but by bluetoothd's own 30 s D-Bus
        /// timeout, and the try after it, 2 s later, bonds in under a second. A `Pair` whose link is up is
        /// pairing, however slowly (a busy host), and is not cancelled: tearing its link down crashed the
        /// kernel's Bluetooth on Debian 12 (Tests/VM/README.md, the bonds phase).
        package var pairTimeout: Duration
        /// When a search that has not found the board starts discovery over (`restartSearch`): 3 s in, then after
        /// twice the wait each time, up to 48 s. The kernel (6.1) drops an advertising report that arrives while
        /// its discovery is still starting, and the controller, filtering duplicates, does not report that
        /// advertiser again in the same scan: without a restart the phone waited for bluetoothd's next scan
        /// cycle, about 10.5 s. On a radio the board's advertising event rarely falls in that moment; the
        /// real-stack scenario's emulated radio sent every first report in it (Tests/VM/README.md, "The radio's
        /// first report").
        package var searchRestart: Backoff
        /// How many times one link may ask for notifications, and the pause before asking again, when
        /// bluetoothd refused at once to register the session (`isNotifySessionRefused`): its GATT client is still
        /// taking in the board's Service Changed (a board daemon that registered its service again), or its
        /// cache does not hold the characteristic yet. Dropping the link then, as for other failures, cut the
        /// rediscovery short every time: on the real stack a phone reconnected for a minute and never subscribed.
        package var notifyTries: Int
        package var notifyPause: Duration

        package init(
            adapter: String, boardAddress: String? = nil,
            backoff: Backoff = Backoff(base: .seconds(1), cap: .seconds(60)), bondLostRetry: Duration = .seconds(300),
            notBondedRetry: Duration = .seconds(60), resolveTimeout: Duration = .seconds(30),
            bondsOverCable: Bool = false, rememberedAddress: String? = nil, bondRetry: Duration = .seconds(30),
            bondAttempts: Int = 3, suspectBondAfter: Int = 1, pairTries: Int = 3, pairPause: Duration = .seconds(2),
            pairTimeout: Duration = .seconds(5),
            searchRestart: Backoff = Backoff(base: .seconds(3), cap: .seconds(48)), notifyTries: Int = 4,
            notifyPause: Duration = .milliseconds(500)
        ) {
            self.searchRestart = searchRestart
            self.notifyTries = notifyTries
            self.notifyPause = notifyPause
            self.pairTimeout = pairTimeout
            self.suspectBondAfter = suspectBondAfter
            self.pairTries = pairTries
            self.pairPause = pairPause
            self.notBondedRetry = notBondedRetry
            self.adapter = adapter
            self.boardAddress = Self.normalized(boardAddress)
            self.backoff = backoff
            self.bondLostRetry = bondLostRetry
            self.resolveTimeout = resolveTimeout
            self.bondsOverCable = bondsOverCable
            self.rememberedAddress = Self.normalized(rememberedAddress)
            self.bondRetry = bondRetry
            self.bondAttempts = bondAttempts
        }

        /// Addresses are held as `BluetoothAddress` writes them (upper case, as BlueZ does); empty, or anything
        /// that is not an address, means none.
        static func normalized(_ address: String?) -> String? {
            address.flatMap { BluetoothAddress($0)?.description }
        }

        package var adapterPath: DBusObjectPath { BlueZNames.adapterPath(adapter) }
    }

    package enum Action: Sendable, Equatable {
        /// `GetManagedObjects` on `org.bluez` `/`; answer with `discovered` or `discoverFailed`.
        case discover(round: UInt64)
        /// `SetDiscoveryFilter({UUIDs: [wake], Transport: "le"})` then `StartDiscovery()`.
        case startSearch(round: UInt64)
        /// `StopDiscovery()` (errors ignored: discovery may already be off).
        case stopSearch
        /// `StopDiscovery()`, answered (errors ignored), then as `startSearch`: the scan starts over, so the
        /// controller reports again what it filtered as a duplicate.
        case restartSearch(round: UInt64)
        /// `Device1.Connect()`; answer with `connectSucceeded`/`connectFailed` for `link`.
        case connect(DBusObjectPath, link: UInt64)
        /// `GattCharacteristic1.StartNotify()`, once per link.
        case startNotify(DBusObjectPath, link: UInt64)
        /// `GattCharacteristic1.ReadValue({})`, once per link after subscribing.
        case readValue(DBusObjectPath, link: UInt64)
        /// `Device1.Disconnect()` (errors ignored).
        case disconnect(DBusObjectPath)
        /// Ask the board over the USB cable to open its pairing window for this host (`hostAddress`: the
        /// adapter's, so the board forgets a stale bond with it); answer `windowOpened`/`windowFailed`.
        case openPairingWindow(link: UInt64, hostAddress: String?)
        /// Ask the board over the USB cable whether it still holds this host's bond (links to it fail); answer
        /// `boardForgotBond`/`boardKeptBond`/`windowFailed`. Only the board's word drops a bond.
        case confirmBondLost(link: UInt64, hostAddress: String?)
        /// Export the phone's agent and `AgentManager1.RegisterAgent(agent, "NoInputNoOutput")`, without taking
        /// the default agent (a desktop's own agent stays the default); answer `agentRegistered`/`agentFailed`.
        case registerAgent(round: UInt64)
        /// `Device1.Pair()` (bluetoothd links, pairs and asks the agent of this connection); answer
        /// `pairSucceeded`/`pairFailed` with the same `attempt` (an answer to a try this central gave up on is
        /// ignored).
        case pair(DBusObjectPath, link: UInt64, attempt: Int)
        /// `Device1.CancelPairing()` (errors ignored): a `Pair` this central stopped waiting for.
        case cancelPairing(DBusObjectPath)
        /// `Properties.Set(Device1, "Trusted", true)`; answer `trustFinished`.
        case trust(DBusObjectPath, link: UInt64)
        /// `Adapter1.RemoveDevice(device)`: this host's half of a bond the board no longer has; answer
        /// `bondRemoved`.
        case removeBond(DBusObjectPath, link: UInt64)
        /// A bond was made over the cable: remember this board for later starts.
        case bonded(address: String)
        /// Hand a 12-byte Wake to the phone client.
        case deliver([UInt8])
        case report(CentralState)
        /// Something went wrong that the phone client should hear about (e.g. a value of the wrong length).
        case problem(String)
    }

    enum Phase: Sendable, Equatable {
        /// Nothing to do until bluetoothd, the tree or the adapter is there.
        case idle
        case discovering
        case searching(started: Bool)
        case connecting(DBusObjectPath)
        case resolving(DBusObjectPath, until: Duration)
        case subscribing(DBusObjectPath, characteristic: DBusObjectPath)
        case reading(DBusObjectPath, characteristic: DBusObjectPath)
        case subscribed(DBusObjectPath, characteristic: DBusObjectPath)
        /// After a failure: try again at `until`; `bondProblem`: also as soon as a board becomes `Paired`, or
        /// (bonding over the cable) the cable comes back.
        case waiting(until: Duration, bondProblem: Bool)
        /// Bonding over the cable, one step per call (`CentralLifecycle+Bonding.swift`).
        case bonding(DBusObjectPath, BondStep)
    }

    enum BondStep: Sendable, Equatable {
        case openingWindow
        case registeringAgent
        /// `Pair` in flight; `tries` counts this one; past `until` it is cancelled and tried again.
        case pairing(tries: Int, until: Duration)
        /// A `Pair` failed inside the open window: the next try is at `until`.
        case pausing(tries: Int, until: Duration)
        case trusting
        /// The links failed as a lost bond would make them (`why`): the board is asked over the cable first.
        case askingBoard(why: String)
        case removingStaleBond
    }

    package let settings: Settings
    private var ownerKnown = false
    private var bluezOwner: String?
    package private(set) var round: UInt64 = 0
    private var discovered = false
    var adapter = AdapterState()
    var devices: [DBusObjectPath: RemoteDevice] = [:]
    /// Wake characteristics (by path) in the tree.
    private var characteristics: Set<DBusObjectPath> = []
    private var pendingSignals: [BlueZSignal] = []
    var phase = Phase.idle
    /// Incremented for every link attempt; calls and answers carry it.
    package private(set) var link: UInt64 = 0
    /// The link on which StartNotify was sent, and how many times (more than once only after
    /// `isNotifySessionRefused`, up to `notifyTries`); when the next may be sent on it.
    private var notifiedLink: UInt64?
    private var notifyAttempts = 0
    private var renotifyAt: Duration?
    var failures = 0
    private var reported: CentralState?
    var boardAddress: String?
    private var valuesDelivered: UInt64 = 0
    var lastProblem: String?
    /// The board the cable named (or, until it does, the one remembered): the board to follow when no
    /// address is configured.
    var cableAddress: String?
    /// The bluetoothd round in which the phone's agent was registered.
    var agentRound: UInt64?
    /// Automatic bonds since the last working link (bounds re-bonding loops).
    var bondsTried = 0
    /// Links to the bonded board that failed in a row before they were usable (`suspectBondAfter`).
    var failedConnects = 0
    /// Restarts of the current search so far, and when the next one is due (while `.searching(started: true)`).
    private var searchRestarts = 0
    private var searchRestartAt: Duration?

    package init(settings: Settings) {
        self.settings = settings
        cableAddress = settings.rememberedAddress
    }

    // MARK: Events

    package mutating func bluezOwnerChanged(_ owner: String?, at now: Duration) -> [Action] {
        if ownerKnown && owner == bluezOwner { return [] }
        ownerKnown = true
        bluezOwner = owner
        round += 1
        discovered = false
        adapter = AdapterState()
        devices = [:]
        characteristics = []
        pendingSignals = []
        phase = .idle
        failures = 0
        notifiedLink = nil
        agentRound = nil
        return advance(at: now)
    }

    package mutating func discovered(_ objects: DBusManagedObjects, round: UInt64, at now: Duration) -> [Action] {
        guard round == self.round, phase == .discovering else { return [] }
        adapter = AdapterState(path: settings.adapterPath, in: objects)
        devices = [:]
        characteristics = []
        for (path, interfaces) in objects where path.isDescendant(of: settings.adapterPath) {
            index(path, interfaces)
        }
        let signals = pendingSignals
        pendingSignals = []
        discovered = true
        phase = .idle
        var actions: [Action] = []
        for signal in signals { actions += apply(signal, at: now) }
        return actions + advance(at: now)
    }

    package mutating func discoverFailed(round: UInt64, error: DBusError, at now: Duration) -> [Action] {
        guard round == self.round, phase == .discovering else { return [] }
        return fail("reading bluetoothd's objects failed: \(error)", bondLost: false, at: now)
    }

    package mutating func received(_ signal: BlueZSignal, at now: Duration) -> [Action] {
        guard bluezOwner != nil else { return [] }
        if phase == .discovering {
            pendingSignals.append(signal)
            return []
        }
        guard discovered else { return [] }
        return apply(signal, at: now)
    }

    package mutating func searchStarted(round: UInt64, at now: Duration) -> [Action] {
        guard round == self.round, phase == .searching(started: false) else { return [] }
        phase = .searching(started: true)
        searchRestartAt = now + settings.searchRestart.delay(afterFailures: searchRestarts + 1)
        return connectToSeenBoard(at: now)
    }

    package mutating func searchFailed(round: UInt64, error: DBusError, at now: Duration) -> [Action] {
        guard round == self.round, phase == .searching(started: false) else { return [] }
        return fail("starting discovery failed: \(error)", bondLost: false, at: now)
    }

    package mutating func connectSucceeded(link: UInt64, at now: Duration) -> [Action] {
        guard link == self.link, case .connecting(let device) = phase else { return [] }
        devices[device]?.connected = true
        phase = .resolving(device, until: now + settings.resolveTimeout)
        return subscribeIfResolved(at: now)
    }

    package mutating func connectFailed(link: UInt64, error: DBusError, at now: Duration) -> [Action] {
        guard link == self.link, case .connecting(let device) = phase else { return [] }
        if error.kind == .bluez(.alreadyConnected) {
            return connectSucceeded(link: link, at: now)
        }
        if error.isBondProblem {
            return fail("connecting to \(address(of: device)) failed: \(error)", bondLost: true, at: now)
        }
        return unusableLink(device, why: "connecting to \(address(of: device)) failed: \(error)", at: now)
    }

    /// A link to the bonded board that failed before it was usable: `Connect` failed, or it succeeded and the
    /// link dropped, or its services never resolved, before the subscription. A board that forgot the bond makes
    /// any of them: bluetoothd answers `Connect` once the link is up, and the encryption with this host's stale
    /// key fails a moment later, or (seen on the real stack with one bluetoothd for both ends) the link stays up
    /// unresolved. Bonding over the cable counts them all (`suspectBondAfter`) and asks the board; counting only
    /// failed `Connect`s left a phone on such links for minutes, never asking.
    mutating func unusableLink(_ device: DBusObjectPath, why: String, at now: Duration) -> [Action] {
        if settings.bondsOverCable, devices[device]?.paired == true {
            failedConnects += 1
            if failedConnects >= settings.suspectBondAfter {
                failedConnects = 0
                return removeStaleBond(
                    device,
                    why: "\(why); \(settings.suspectBondAfter) unusable links in a row: "
                        + "the board may no longer know this bond", at: now)
            }
        }
        return fail(why, bondLost: false, at: now)
    }

    package mutating func notifyStarted(link: UInt64, at now: Duration) -> [Action] {
        guard link == self.link, case .subscribing(let device, let characteristic) = phase else { return [] }
        phase = .reading(device, characteristic: characteristic)
        return [.readValue(characteristic, link: link)]
    }

    package mutating func notifyFailed(link: UInt64, error: DBusError, at now: Duration) -> [Action] {
        guard link == self.link, case .subscribing(let device, _) = phase else { return [] }
        if error.isNotifySessionRefused, notifyAttempts < settings.notifyTries {
            // Keep the link: bluetoothd finishes what it was doing on it, then takes the session.
            phase = .resolving(device, until: now + settings.resolveTimeout)
            notifiedLink = nil
            renotifyAt = now + settings.notifyPause
            return []
        }
        return [.disconnect(device)]
            + fail("StartNotify failed: \(error)", bondLost: error.isBondProblem, at: now)
    }

    /// The answer to the one `ReadValue` after subscribing: delivered like a notification.
    package mutating func readSucceeded(_ value: [UInt8], link: UInt64, at now: Duration) -> [Action] {
        guard link == self.link, case .reading(let device, let characteristic) = phase else { return [] }
        phase = .subscribed(device, characteristic: characteristic)
        failures = 0
        failedConnects = 0
        bondsTried = 0
        lastProblem = nil
        return valueArrived(value) + report(.subscribed(address: address(of: device)))
    }

    /// A failed read is only a lost echo (notifications work), unless it says the bond is gone.
    package mutating func readFailed(link: UInt64, error: DBusError, at now: Duration) -> [Action] {
        guard link == self.link, case .reading(let device, let characteristic) = phase else { return [] }
        if error.isBondProblem {
            return [.disconnect(device)] + fail("ReadValue failed: \(error)", bondLost: true, at: now)
        }
        phase = .subscribed(device, characteristic: characteristic)
        failures = 0
        failedConnects = 0
        bondsTried = 0
        lastProblem = "ReadValue failed: \(error)"
        return [.problem("reading the last Wake failed: \(error)")] + report(.subscribed(address: address(of: device)))
    }

    package mutating func timerFired(at now: Duration) -> [Action] {
        switch phase {
        case .waiting(let until, _) where now >= until:
            phase = .idle
            return advance(at: now)
        case .resolving(let device, let until) where now >= until:
            return [.disconnect(device)]
                + unusableLink(device, why: "\(address(of: device)) did not resolve its services in time", at: now)
        case .resolving where renotifyAt.map { now >= $0 } == true:
            return subscribeIfResolved(at: now)
        case .bonding(let device, .pausing(let tries, let until)) where now >= until:
            return startPair(device, try: tries + 1, at: now)
        case .bonding(let device, .pairing(let tries, let until)) where now >= until:
            if devices[device]?.connected == true {
                // The link is up: bluetoothd is pairing over it, slowly, not stalled. Cancelling would tear the
                // link down under the pairing (Debian 12's kernel crashed its Bluetooth on that); look again later.
                phase = .bonding(device, .pairing(tries: tries, until: now + settings.pairTimeout))
                return []
            }
            return pairGivenUp(
                device, tries: tries, why: "no answer in \(settings.pairTimeout.components.seconds) s", at: now)
        case .searching(started: true) where searchRestartAt.map { now >= $0 } == true:
            searchRestarts += 1
            phase = .searching(started: false)
            return [.restartSearch(round: round)]
        default:
            return []
        }
    }

    package var nextDeadline: Duration? {
        switch phase {
        case .resolving(_, let until): min(until, renotifyAt ?? until)
        case .waiting(let until, _), .bonding(_, .pausing(_, let until)), .bonding(_, .pairing(_, let until)):
            until
        case .searching(started: true): searchRestartAt
        default: nil
        }
    }

    package var facts: CentralFacts {
        CentralFacts(
            state: reported ?? .waitingForBlueZ, boardAddress: boardAddress, connections: link,
            valuesDelivered: valuesDelivered, problem: lastProblem)
    }

    /// The device the central is connected (or connecting) to, for `stop()`.
    package var activeDevice: DBusObjectPath? {
        switch phase {
        case .connecting(let device), .resolving(let device, _), .subscribing(let device, _),
            .reading(let device, _), .subscribed(let device, _), .bonding(let device, _):
            device
        default:
            nil
        }
    }

    package var isSearching: Bool { phase == .searching(started: true) }

    /// bluetoothd's unique name on the bus (nil: not running).
    package var bluezOwnerName: String? { bluezOwner }

    // MARK: Internals

    private var adapterReady: Bool { adapter.isPresent && adapter.powered }

    mutating func advance(at now: Duration) -> [Action] {
        guard bluezOwner != nil else { return report(.waitingForBlueZ) }
        guard phase == .idle else { return [] }
        guard discovered else {
            phase = .discovering
            return [.discover(round: round)]
        }
        guard adapterReady else { return report(.waitingForAdapter(settings.adapter)) }
        // Already linked (bluetoothd reconnected a bonded board on its own, or a previous run did).
        if let path = boardsInOrder(devices.filter { $0.value.connected && isBoard($0.value) }).first {
            return beginLink(path, connected: true, at: now)
        }
        phase = .searching(started: false)
        searchRestarts = 0
        return [.startSearch(round: round)] + report(.searching)
    }

    mutating func connectToSeenBoard(at now: Duration) -> [Action] {
        guard phase == .searching(started: true) else { return [] }
        // A board this host is bonded with comes first: another device advertising the Wake service is only
        // a candidate while no bonded one is in sight.
        guard let path = boardsInOrder(devices.filter { $0.value.seen && isBoard($0.value) }).first else {
            return []
        }
        return [.stopSearch] + beginLink(path, connected: devices[path]?.connected ?? false, at: now)
    }

    mutating func beginLink(_ device: DBusObjectPath, connected: Bool, at now: Duration) -> [Action] {
        link += 1
        notifyAttempts = 0
        renotifyAt = nil
        boardAddress = devices[device]?.address ?? boardAddress
        if settings.bondsOverCable, devices[device]?.paired == false {
            return startBond(device, at: now)
        }
        return linkBonded(device, connected: connected, at: now)
    }

    /// Connects (or, already connected, waits for the services of) a board the link may use as it is.
    mutating func linkBonded(_ device: DBusObjectPath, connected: Bool, at now: Duration) -> [Action] {
        if connected {
            phase = .resolving(device, until: now + settings.resolveTimeout)
            return report(.subscribing(address: address(of: device))) + subscribeIfResolved(at: now)
        }
        phase = .connecting(device)
        return [.connect(device, link: link)] + report(.connecting(address: address(of: device)))
    }

    private mutating func subscribeIfResolved(at now: Duration) -> [Action] {
        guard case .resolving(let device, _) = phase, devices[device]?.servicesResolved == true else { return [] }
        guard let characteristic = characteristics.filter({ $0.isDescendant(of: device) }).sorted().first else {
            return [.disconnect(device)]
                + fail("\(address(of: device)) has no Wake characteristic", bondLost: false, at: now)
        }
        guard notifiedLink != link else { return [] }
        if renotifyAt.map({ now < $0 }) == true { return [] }
        notifiedLink = link
        renotifyAt = nil
        notifyAttempts = notifyAttempts + 1
        phase = .subscribing(device, characteristic: characteristic)
        return [.startNotify(characteristic, link: link)] + report(.subscribing(address: address(of: device)))
    }

    mutating func apply(_ signal: BlueZSignal, at now: Duration) -> [Action] {
        let wasReady = adapterReady
        adapter.apply(signal, adapterPath: settings.adapterPath)
        if wasReady && !adapterReady { return adapterLost(at: now) }
        var actions: [Action] = []
        switch signal {
        case .interfacesAdded(let path, let interfaces) where path.isDescendant(of: settings.adapterPath):
            index(path, interfaces)
            if interfaces[BlueZNames.device] != nil { devices[path]?.seen = true }
            if characteristics.contains(path), case .resolving(let device, _) = phase, path.isDescendant(of: device) {
                // The board registered its Wake service again on a link that stayed up.
                actions += subscribeIfResolved(at: now)
            }
        case .interfacesRemoved(let path, let removed) where path.isDescendant(of: settings.adapterPath):
            if removed.contains(BlueZNames.gattCharacteristic) {
                characteristics.remove(path)
                if isSubscribedCharacteristic(path) {
                    // The board's daemon stopped or restarted: its GATT application is gone, the link may stay
                    // up. After the backoff: subscribe to the characteristic the board registered by then, or,
                    // if there is none yet, disconnect and link again.
                    return fail("the board's Wake characteristic went away", bondLost: false, at: now)
                }
            }
            if removed.contains(BlueZNames.device) {
                devices[path] = nil
                if activeDevice == path {
                    if isBonding { return deviceRemovedWhileBonding(at: now) }
                    return linkLost(path, why: "the board's device object went away", at: now)
                }
            }
        case .propertiesChanged(let path, BlueZNames.device, let changed, _):
            guard devices[path] != nil else { break }
            let wasPaired = devices[path]?.paired ?? false
            devices[path]?.apply(changed)
            // Pairing connects and disconnects on its own: only a made link can be lost.
            if changed["Connected"]?.unwrappingVariants.boolValue == false, activeDevice == path,
                phase != .connecting(path), !isBonding
            {
                return linkLost(path, why: "\(address(of: path)) disconnected", at: now)
            }
            if wasPaired, devices[path]?.paired == false, settings.bondsOverCable, activeDevice == path,
                case .subscribed = phase
            {
                // This host's half of the bond went away under a working link (`bluetoothctl remove`, a reset
                // adapter): pair again over the cable now rather than at the next drop.
                return actions + [.disconnect(path)] + beginLink(path, connected: false, at: now)
            }
            if !wasPaired, devices[path]?.paired == true, case .waiting(_, bondProblem: true) = phase,
                devices[path].map(isBoard) == true
            {
                // Paired at last (the user followed the hint): no reason to wait for the slow retry.
                phase = .idle
                failures = 0
                return actions + advance(at: now)
            }
            if changed["ServicesResolved"]?.unwrappingVariants.boolValue == true {
                actions += subscribeIfResolved(at: now)
            }
        case .propertiesChanged(let path, BlueZNames.gattCharacteristic, let changed, _):
            if let value = changed["Value"]?.unwrappingVariants, isSubscribedCharacteristic(path) {
                actions += valueArrived(value.bytesValue ?? [])
            }
        default:
            break
        }
        if !wasReady && adapterReady { return actions + advance(at: now) }
        return actions + connectToSeenBoard(at: now)
    }

    private mutating func index(_ path: DBusObjectPath, _ interfaces: [String: [String: DBusValue]]) {
        if let properties = interfaces[BlueZNames.device] {
            devices[path] = RemoteDevice(properties: properties)
        }
        if let properties = interfaces[BlueZNames.gattCharacteristic],
            properties["UUID"]?.unwrappingVariants.stringValue?.lowercased() == WakeGATT.characteristicUUID
        {
            characteristics.insert(path)
        }
    }

    private func isSubscribedCharacteristic(_ path: DBusObjectPath) -> Bool {
        switch phase {
        case .subscribing(_, let characteristic), .reading(_, let characteristic), .subscribed(_, let characteristic):
            characteristic == path
        default:
            false
        }
    }

    private mutating func valueArrived(_ value: [UInt8]) -> [Action] {
        guard value.count == 12 else {
            lastProblem = "ignored a Wake value of \(value.count) bytes (expected 12)"
            return [.problem(lastProblem ?? "")]
        }
        valuesDelivered += 1
        return [.deliver(value)]
    }

    private mutating func linkLost(_ device: DBusObjectPath, why: String, at now: Duration) -> [Action] {
        if !(devices[device]?.paired ?? false) {
            switch phase {
            case .resolving, .subscribing, .reading:
                // Dropped while setting up notifications on a board this host has no bond with: the board's
                // Wake characteristic needs an encrypted link, bluetoothd asked to pair, and the board refused.
                return notBonded(why, at: now)
            default:
                break
            }
        }
        if case .resolving = phase { return unusableLink(device, why: why, at: now) }
        return fail(why, bondLost: false, at: now)
    }

    mutating func notBonded(_ why: String, at now: Duration) -> [Action] {
        waitForBond(why, retryIn: settings.notBondedRetry, at: now) { .notBonded(address: $0, retryIn: $1) }
    }

    private mutating func adapterLost(at now: Duration) -> [Action] {
        round += 1
        phase = .idle
        failures = 0
        notifiedLink = nil
        for path in devices.keys {
            devices[path]?.connected = false
            devices[path]?.servicesResolved = false
        }
        forgetSightings()
        return report(.waitingForAdapter(settings.adapter))
    }

    /// Sightings belong to one search: the next one must see the board advertise again.
    mutating func forgetSightings() {
        for path in devices.keys { devices[path]?.seen = false }
    }

    mutating func fail(_ why: String, bondLost: Bool, at now: Duration) -> [Action] {
        if bondLost, settings.bondsOverCable, let device = activeDevice {
            return removeStaleBond(device, why: why, at: now)
        }

        if bondLost {
            return waitForBond(why, retryIn: settings.bondLostRetry, at: now) { .bondLost(address: $0, retryIn: $1) }
        }
        lastProblem = why
        forgetSightings()
        failures += 1
        let delay = settings.backoff.delay(afterFailures: failures)
        phase = .waiting(until: now + delay, bondProblem: false)
        return [.problem(why)] + report(.reconnecting(retryIn: delay))
    }

    /// A bond problem: wait `retryIn` (or until the board becomes `Paired`) and report `state`.
    mutating func waitForBond(
        _ why: String, retryIn: Duration, at now: Duration, _ state: (String, Duration) -> CentralState
    ) -> [Action] {
        lastProblem = why
        forgetSightings()
        phase = .waiting(until: now + retryIn, bondProblem: true)
        return [.problem(why)] + report(state(boardAddress ?? "the board", retryIn))
    }

    mutating func report(_ state: CentralState) -> [Action] {
        guard state != reported else { return [] }
        reported = state
        return [.report(state)]
    }

    /// The configured board, else the one the cable named (or the remembered one), else a device advertising
    /// the Wake service that is bonded or advertises its own identity (`RemoteDevice.isBoard`).
    func isBoard(_ device: RemoteDevice) -> Bool {
        device.isBoard(configuredAddress: settings.boardAddress ?? cableAddress)
    }

    /// Board candidates, the bonded ones first, then by path: the same order whatever order bluetoothd
    /// reported them in.
    func boardsInOrder(_ candidates: [DBusObjectPath: RemoteDevice]) -> [DBusObjectPath] {
        candidates.sorted { ($0.value.paired ? 0 : 1, $0.key) < ($1.value.paired ? 0 : 1, $1.key) }.map(\.key)
    }

    func address(of device: DBusObjectPath) -> String {
        devices[device]?.address ?? boardAddress ?? device.rawValue
    }
}
