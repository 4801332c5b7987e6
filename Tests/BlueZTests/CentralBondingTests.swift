import DBusModel
import Testing

@testable import BlueZ

/// Bonding over the USB cable, as timelines: events, times, actions and deadlines.
@Suite("CentralLifecycle bonding over the cable")
struct CentralBondingTests {
    typealias Action = CentralLifecycle.Action
    typealias Row = (Duration, (inout CentralLifecycle, Duration) -> [Action], [Action], Duration?)
    static let device = CentralLifecycleTests.device
    static let characteristic = CentralLifecycleTests.characteristic
    static let address = "00:AA:01:00:12:34"
    static let stranger: DBusObjectPath = "/org/bluez/hci0/dev_00_BB_02_00_56_78"
    static let strangerAddress = "00:BB:02:00:56:78"
    /// The phone host's adapter in `CentralLifecycleTests.tree` (`FakeBlueZ.adapter()`'s address).
    static let hostAddress = "00:AA:01:00:12:34"
    static let refused = DBusError.bluez(.authenticationFailed, "Authentication Failed")
    static let slow = DBusError.timeout("no reply to org.bluez.Device1.Pair within 30000 ms")

    static func settings(remembered: String? = nil) -> CentralLifecycle.Settings {
        .init(adapter: "hci0", bondsOverCable: true, rememberedAddress: remembered, bondRetry: .seconds(30))
    }

    /// `tree` with the board's `Paired` set as given (and `extra` objects added).
    static func tree(paired: Bool, extra: DBusManagedObjects = [:]) -> DBusManagedObjects {
        var tree = CentralLifecycleTests.tree
        tree[device]?[BlueZNames.device]?["Paired"] = .boolean(paired)
        return tree.merging(extra) { old, _ in old }
    }

    static func run(_ machine: inout CentralLifecycle, _ timeline: [Row]) {
        for (index, (time, event, actions, deadline)) in timeline.enumerated() {
            #expect(event(&machine, time) == actions, "row \(index) at \(time)")
            #expect(machine.nextDeadline == deadline, "row \(index) deadline")
        }
    }

    /// The headline: a board without a bond is seen; the phone opens its window over the cable, registers its
    /// agent, pairs, trusts, remembers the board and links, with no command typed.
    @Test func aBoardWithoutABondIsPairedOverTheCableBeforeTheLink() {
        var machine = CentralLifecycle(settings: Self.settings())
        let value = WakeCentralTranscriptTests.wake(3)
        let address = Self.address
        Self.run(
            &machine,
            [
                (.zero, { $0.bluezOwnerChanged(":1.0", at: $1) }, [.discover(round: 1)], nil),
                (
                    .zero, { $0.discovered(Self.tree(paired: false), round: 1, at: $1) },
                    [.startSearch(round: 1), .report(.searching)], nil
                ),
                (
                    .zero, { $0.searchStarted(round: 1, at: $1) },
                    [
                        .stopSearch, .openPairingWindow(link: 1, hostAddress: Self.hostAddress),
                        .report(.pairing(address: address)),
                    ], nil
                ),
                (
                    .seconds(1), { $0.windowOpened(boardAddress: "00:aa:01:00:12:34", link: 1, at: $1) },
                    [.registerAgent(round: 1)], nil
                ),
                (
                    .seconds(1), { $0.agentRegistered(round: 1, at: $1) }, [.pair(Self.device, link: 1, attempt: 1)],
                    .seconds(6)
                ),
                // bluetoothd links to pair and drops the link when it is done: that is no lost link.
                (
                    .seconds(2),
                    { $0.received(CentralLifecycleTests.changed(Self.device, ["Connected": .boolean(true)]), at: $1) },
                    [], .seconds(6)
                ),
                (
                    .seconds(3),
                    { $0.received(CentralLifecycleTests.changed(Self.device, ["Connected": .boolean(false)]), at: $1) },
                    [], .seconds(6)
                ),
                (.seconds(4), { $0.pairSucceeded(link: 1, attempt: 1, at: $1) }, [.trust(Self.device, link: 1)], nil),
                (
                    .seconds(4), { $0.trustFinished(link: 1, error: nil, at: $1) },
                    [
                        .bonded(address: address), .connect(Self.device, link: 1),
                        .report(.connecting(address: address)),
                    ], nil
                ),
                (.seconds(5), { $0.connectSucceeded(link: 1, at: $1) }, [], .seconds(35)),
                (
                    .seconds(5),
                    {
                        $0.received(
                            CentralLifecycleTests.changed(Self.device, ["ServicesResolved": .boolean(true)]), at: $1)
                    },
                    [.startNotify(Self.characteristic, link: 1), .report(.subscribing(address: address))], nil
                ),
                (.seconds(5), { $0.notifyStarted(link: 1, at: $1) }, [.readValue(Self.characteristic, link: 1)], nil),
                (
                    .seconds(5), { $0.readSucceeded(value, link: 1, at: $1) },
                    [.deliver(value), .report(.subscribed(address: address))], nil
                ),
            ])
    }

    /// A board cooling down names when it opens again (`Retry-After`): the next try waits that out, never less
    /// than the usual 30 s and never more than the longest cool-down a board has (300 s).
    @Test(arguments: [
        (Duration?.none, Duration.seconds(30)), (.seconds(10), .seconds(30)), (.seconds(95), .seconds(95)),
        (.seconds(1_000_000), CentralLifecycle.longestRetryAfter),
    ])
    func aCoolingDownBoardIsAskedAgainWhenItSaid(retryAfter: Duration?, wait: Duration) {
        var machine = CentralLifecycle(settings: Self.settings())
        _ = machine.bluezOwnerChanged(":1.0", at: .zero)
        _ = machine.discovered(Self.tree(paired: false), round: 1, at: .zero)
        #expect(
            machine.searchStarted(round: 1, at: .zero).contains(
                .openPairingWindow(link: 1, hostAddress: Self.hostAddress)))
        let why = "the board refused (HTTP 429): a new one may open in 95 s"
        let said = "the board's pairing window could not be opened over USB: \(why)"
        Self.run(
            &machine,
            [
                (
                    .seconds(1), { $0.windowFailed(why, retryAfter: retryAfter, link: 1, at: $1) },
                    [.problem(said), .report(.pairingFailed(address: Self.address, reason: said, retryIn: wait))],
                    .seconds(1) + wait
                ),
                // Plugged in again: at once, whatever the board said.
                (.seconds(2), { $0.cableArrived(at: $1) }, [.startSearch(round: 1), .report(.searching)], nil),
            ])
    }

    /// A bonded board needs no window: the cable is asked for nothing.
    @Test func aBondedBoardLinksWithoutTheCable() {
        var machine = CentralLifecycle(settings: Self.settings())
        _ = machine.bluezOwnerChanged(":1.0", at: .zero)
        _ = machine.discovered(Self.tree(paired: true), round: 1, at: .zero)
        #expect(
            machine.searchStarted(round: 1, at: .zero) == [
                .stopSearch, .connect(Self.device, link: 1), .report(.connecting(address: Self.address)),
            ])
    }

    /// Without the cable (or the board refusing) the phone says why, waits, and tries again at once when
    /// the board is plugged in; the agent is registered once per bluetoothd.
    @Test func aWindowThatCannotOpenWaitsForTheCable() {
        var machine = CentralLifecycle(settings: Self.settings())
        let why = "board unreachable: 192.168.42.1:8080: connection refused"
        let said = "the board's pairing window could not be opened over USB: \(why)"
        let address = Self.address
        Self.run(
            &machine,
            [
                (.zero, { $0.bluezOwnerChanged(":1.0", at: $1) }, [.discover(round: 1)], nil),
                (
                    .zero, { $0.discovered(Self.tree(paired: false), round: 1, at: $1) },
                    [.startSearch(round: 1), .report(.searching)], nil
                ),
                (
                    .zero, { $0.searchStarted(round: 1, at: $1) },
                    [
                        .stopSearch, .openPairingWindow(link: 1, hostAddress: Self.hostAddress),
                        .report(.pairing(address: address)),
                    ], nil
                ),
                (
                    .seconds(10), { $0.windowFailed(why, link: 1, at: $1) },
                    [
                        .problem(said),
                        .report(.pairingFailed(address: address, reason: said, retryIn: .seconds(30))),
                    ], .seconds(40)
                ),
                // A late answer of the same attempt changes nothing.
                (.seconds(11), { $0.windowOpened(boardAddress: address, link: 1, at: $1) }, [], .seconds(40)),
                // Plugged in again: at once.
                (
                    .seconds(20), { $0.cableArrived(at: $1) }, [.startSearch(round: 1), .report(.searching)], nil
                ),
                (.seconds(20), { $0.searchStarted(round: 1, at: $1) }, [], .seconds(23)),
                (
                    .seconds(20),
                    { $0.received(CentralLifecycleTests.changed(Self.device, ["RSSI": .int16(-40)]), at: $1) },
                    [
                        .stopSearch, .openPairingWindow(link: 2, hostAddress: Self.hostAddress),
                        .report(.pairing(address: address)),
                    ], nil
                ),
                (
                    .seconds(21), { $0.windowOpened(boardAddress: address, link: 2, at: $1) },
                    [.registerAgent(round: 1)], nil
                ),
                (
                    .seconds(21),
                    { $0.agentFailed(round: 1, error: .bluez(.alreadyExists, "Already Exists"), at: $1) },
                    [.pair(Self.device, link: 2, attempt: 1)], .seconds(26)
                ),
                // A failed Pair is tried again inside the window; one that timed out is cancelled first.
                (
                    .seconds(25), { $0.pairFailed(link: 2, attempt: 1, error: Self.refused, at: $1) },
                    [.problem("pairing try 1 of 3 failed: \(Self.refused)")], .seconds(27)
                ),
                (.seconds(27), { $0.timerFired(at: $1) }, [.pair(Self.device, link: 2, attempt: 2)], .seconds(32)),
                (
                    .seconds(28), { $0.pairFailed(link: 2, attempt: 2, error: Self.slow, at: $1) },
                    [.cancelPairing(Self.device), .problem("pairing try 2 of 3 failed: \(Self.slow)")], .seconds(30)
                ),
                (.seconds(30), { $0.timerFired(at: $1) }, [.pair(Self.device, link: 2, attempt: 3)], .seconds(35)),
                (
                    .seconds(30), { $0.pairFailed(link: 2, attempt: 3, error: Self.refused, at: $1) },
                    [
                        .problem("pairing refused: \(Self.refused)"),
                        .report(
                            .pairingFailed(
                                address: address, reason: "pairing refused: \(Self.refused)", retryIn: .seconds(30))),
                    ], .seconds(60)
                ),
                // The timer: the agent is still registered with this bluetoothd, so no second RegisterAgent.
                (.seconds(60), { $0.timerFired(at: $1) }, [.startSearch(round: 1), .report(.searching)], nil),
                (.seconds(60), { $0.searchStarted(round: 1, at: $1) }, [], .seconds(63)),
                (
                    .seconds(60),
                    { $0.received(CentralLifecycleTests.changed(Self.device, ["RSSI": .int16(-41)]), at: $1) },
                    [
                        .stopSearch, .openPairingWindow(link: 3, hostAddress: Self.hostAddress),
                        .report(.pairing(address: address)),
                    ], nil
                ),
                (
                    .seconds(61), { $0.windowOpened(boardAddress: address, link: 3, at: $1) },
                    [.pair(Self.device, link: 3, attempt: 1)], .seconds(66)
                ),
            ])
    }

    /// A `Pair` that stalls (the first bond once waited 30 s for bluetoothd's own D-Bus timeout) is given up
    /// after `pairTimeout` (5 s), cancelled and tried again after the pause; the late answer of the try given
    /// up changes nothing.
    @Test func aStalledPairIsCancelledWithinSecondsAndTriedAgain() {
        var machine = CentralLifecycle(settings: Self.settings())
        _ = machine.bluezOwnerChanged(":1.0", at: .zero)
        _ = machine.discovered(Self.tree(paired: false), round: 1, at: .zero)
        _ = machine.searchStarted(round: 1, at: .zero)
        _ = machine.windowOpened(boardAddress: Self.address, link: 1, at: .seconds(1))
        #expect(machine.agentRegistered(round: 1, at: .seconds(1)) == [.pair(Self.device, link: 1, attempt: 1)])
        #expect(machine.nextDeadline == .seconds(6))
        #expect(machine.timerFired(at: .seconds(5)) == [], "not yet")
        #expect(
            machine.timerFired(at: .seconds(6)) == [
                .cancelPairing(Self.device), .problem("pairing try 1 of 3 failed: no answer in 5 s"),
            ])
        #expect(machine.nextDeadline == .seconds(8))
        let cancelled = DBusError.bluez(.failed, "Authentication Canceled")
        #expect(machine.pairFailed(link: 1, attempt: 1, error: cancelled, at: .seconds(7)) == [], "given up already")
        #expect(machine.timerFired(at: .seconds(8)) == [.pair(Self.device, link: 1, attempt: 2)])
        #expect(machine.pairSucceeded(link: 1, attempt: 1, at: .seconds(9)) == [], "an answer to the old try")
        #expect(machine.pairSucceeded(link: 1, attempt: 2, at: .seconds(10)) == [.trust(Self.device, link: 1)])
    }

    /// A `Pair` whose link is up at its 5 s is pairing, slowly (a busy host took 3.5 s for the keys in the
    /// real-stack scenario), not stalled: it is left to finish. Cancelling it tore the link down under the
    /// pairing, and Debian 12's kernel (6.1.176) then crashed its Bluetooth (list_del corruption in
    /// `hci_conn_del`, from `hci_abort_conn_sync`), with bluetoothd stuck in the kernel for good. A `Pair` is
    /// given up only when it has had no link for a whole `pairTimeout`.
    @Test func aPairWhoseLinkIsUpIsNotCancelled() {
        var machine = CentralLifecycle(settings: Self.settings())
        _ = machine.bluezOwnerChanged(":1.0", at: .zero)
        _ = machine.discovered(Self.tree(paired: false), round: 1, at: .zero)
        _ = machine.searchStarted(round: 1, at: .zero)
        _ = machine.windowOpened(boardAddress: Self.address, link: 1, at: .seconds(1))
        let linked = CentralLifecycleTests.changed(Self.device, ["Connected": .boolean(true)])
        let unlinked = CentralLifecycleTests.changed(Self.device, ["Connected": .boolean(false)])
        Self.run(
            &machine,
            [
                (
                    .seconds(1), { $0.agentRegistered(round: 1, at: $1) }, [.pair(Self.device, link: 1, attempt: 1)],
                    .seconds(6)
                ),
                (.seconds(2), { $0.received(linked, at: $1) }, [], .seconds(6)),
                (.seconds(6), { $0.timerFired(at: $1) }, [], .seconds(11)),
                // The link drops while the pairing is unanswered: from then on it is a stall like any other.
                (.seconds(8), { $0.received(unlinked, at: $1) }, [], .seconds(11)),
                (
                    .seconds(11), { $0.timerFired(at: $1) },
                    [.cancelPairing(Self.device), .problem("pairing try 1 of 3 failed: no answer in 5 s")], .seconds(13)
                ),
                (.seconds(13), { $0.timerFired(at: $1) }, [.pair(Self.device, link: 1, attempt: 2)], .seconds(18)),
                (.seconds(14), { $0.received(linked, at: $1) }, [], .seconds(18)),
                (.seconds(18), { $0.timerFired(at: $1) }, [], .seconds(23)),
                (.seconds(19), { $0.pairSucceeded(link: 1, attempt: 2, at: $1) }, [.trust(Self.device, link: 1)], nil),
            ])
    }

    /// Another device advertises the Wake service, and its path sorts first. The cable names the real board:
    /// the phone never pairs with the stranger and follows the board from then on.
    @Test func theCableDecidesWhichDeviceIsPaired() {
        let strangerObject = WakeCentralTranscriptTests.deviceProperties(address: Self.strangerAddress)
        var tree = Self.tree(paired: false, extra: [Self.stranger: strangerObject])
        tree[Self.stranger]?[BlueZNames.device]?["Paired"] = .boolean(false)
        var machine = CentralLifecycle(settings: Self.settings())
        let address = Self.address
        let told = "\(Self.strangerAddress) advertises the Wake service but is not the board on the cable (\(address))"
        // Path order puts dev_00_AA first; make the stranger the one seen.
        tree[Self.device]?[BlueZNames.device]?["RSSI"] = nil
        Self.run(
            &machine,
            [
                (.zero, { $0.bluezOwnerChanged(":1.0", at: $1) }, [.discover(round: 1)], nil),
                (.zero, { $0.discovered(tree, round: 1, at: $1) }, [.startSearch(round: 1), .report(.searching)], nil),
                (
                    .zero, { $0.searchStarted(round: 1, at: $1) },
                    [
                        .stopSearch, .openPairingWindow(link: 1, hostAddress: Self.hostAddress),
                        .report(.pairing(address: Self.strangerAddress)),
                    ], nil
                ),
                (
                    .seconds(1), { $0.windowOpened(boardAddress: address, link: 1, at: $1) },
                    [.problem(told), .startSearch(round: 1), .report(.searching)], nil
                ),
                // The stranger advertises again: it is not the board any more.
                (.seconds(2), { $0.searchStarted(round: 1, at: $1) }, [], .seconds(5)),
                (
                    .seconds(2),
                    { $0.received(CentralLifecycleTests.changed(Self.stranger, ["RSSI": .int16(-30)]), at: $1) }, [],
                    .seconds(5)
                ),
                (
                    .seconds(3),
                    { $0.received(CentralLifecycleTests.changed(Self.device, ["RSSI": .int16(-60)]), at: $1) },
                    [
                        .stopSearch, .openPairingWindow(link: 2, hostAddress: Self.hostAddress),
                        .report(.pairing(address: address)),
                    ], nil
                ),
            ])
    }

    /// The board was reset and no longer knows this host's bond: the stale half is removed here and the board
    /// is paired again over the cable, without waiting for the slow bond-lost retry.
    @Test func aBondTheBoardForgotIsRemovedAndMadeAgain() {
        var machine = Self.replaying(into: CentralLifecycle(settings: Self.settings()))
        let address = Self.address
        let why = "StartNotify failed: \(Self.refused)"
        var unpaired = WakeCentralTranscriptTests.deviceProperties()
        unpaired[BlueZNames.device]?["Paired"] = .boolean(false)
        Self.run(
            &machine,
            [
                (
                    .seconds(3), { $0.notifyFailed(link: 1, error: Self.refused, at: $1) },
                    [
                        .disconnect(Self.device),
                        .problem("\(why): asking the board over the cable whether it still knows this host's bond"),
                        .confirmBondLost(link: 1, hostAddress: Self.hostAddress), .report(.pairing(address: address)),
                    ], nil
                ),
                // Only the board's word drops the bond: it says it no longer holds it.
                (
                    .seconds(3), { $0.boardForgotBond(link: 1, at: $1) },
                    [
                        .problem("the board no longer knows this host's bond: pairing again over the cable"),
                        .removeBond(Self.device, link: 1),
                    ], nil
                ),
                // Removing the device takes its object with it: expected while removing.
                (.seconds(3), { $0.received(.interfacesRemoved(Self.device, [BlueZNames.device]), at: $1) }, [], nil),
                (
                    .seconds(3), { $0.bondRemoved(link: 1, error: nil, at: $1) },
                    [.startSearch(round: 1), .report(.searching)], nil
                ),
                (.seconds(4), { $0.searchStarted(round: 1, at: $1) }, [], .seconds(7)),
                (
                    .seconds(5), { $0.received(.interfacesAdded(Self.device, unpaired), at: $1) },
                    [
                        .stopSearch, .openPairingWindow(link: 2, hostAddress: Self.hostAddress),
                        .report(.pairing(address: address)),
                    ], nil
                ),
            ])
    }

    /// A board that keeps refusing bonds that pair fine is not re-bonded in a loop: each refusal removes the
    /// stale half and pairs again, but after `bondAttempts` of them in a row (whatever waits came between,
    /// such as a window refused while the board cools down) the central waits `bondLostRetry` as without the
    /// cable; after that wait it may try again.
    @Test func rebondingIsBounded() {
        var settings = Self.settings()
        settings.bondAttempts = 2
        var machine = CentralLifecycle(settings: settings)
        var unpaired = WakeCentralTranscriptTests.deviceProperties()
        unpaired[BlueZNames.device]?["Paired"] = .boolean(false)
        _ = machine.bluezOwnerChanged(":1.0", at: .zero)
        _ = machine.discovered(Self.tree(paired: false), round: 1, at: .zero)
        var now = Duration.zero
        /// One bond over the cable, then the board refuses the link: the count of bonds in a row grows.
        func bondThenRefused(link: UInt64) -> [Action] {
            _ = machine.searchStarted(round: 1, at: now)
            _ = machine.windowOpened(boardAddress: Self.address, link: link, at: now)
            _ = machine.agentRegistered(round: 1, at: now)
            _ = machine.pairSucceeded(link: link, attempt: 1, at: now)
            _ = machine.trustFinished(link: link, error: nil, at: now)
            _ = machine.connectFailed(link: link, error: Self.refused, at: now)
            _ = machine.boardForgotBond(link: link, at: now)
            return machine.bondRemoved(link: link, error: nil, at: now)
        }
        #expect(bondThenRefused(link: 1) == [.startSearch(round: 1), .report(.searching)])
        // The device comes back without a bond; the board is cooling down: the window is refused, 30 s wait.
        _ = machine.searchStarted(round: 1, at: now)
        _ = machine.received(.interfacesAdded(Self.device, unpaired), at: now)
        _ = machine.windowFailed("the board refused (HTTP 429): cooling down", link: 2, at: now)
        now = .seconds(30)
        _ = machine.timerFired(at: now)
        _ = machine.received(CentralLifecycleTests.changed(Self.device, ["RSSI": .int16(-40)]), at: now)
        // The second bond in a row, refused again: that is the limit.
        _ = machine.searchStarted(round: 1, at: now)
        _ = machine.windowOpened(boardAddress: Self.address, link: 3, at: now)
        _ = machine.pairSucceeded(link: 3, attempt: 1, at: now)
        _ = machine.trustFinished(link: 3, error: nil, at: now)
        let limit = machine.connectFailed(link: 3, error: Self.refused, at: now)
        #expect(limit.last == .report(.bondLost(address: Self.address, retryIn: .seconds(300))))
        #expect(!limit.contains { if case .removeBond = $0 { true } else { false } })
        #expect(machine.nextDeadline == .seconds(330))
        // After the long wait, bonds over the cable are allowed again.
        #expect(machine.timerFired(at: .seconds(330)).first == .startSearch(round: 1))
        #expect(machine.bondsTried == 0)
    }

    /// This host's half of the bond vanished under a working link (`bluetoothctl remove`): paired again now.
    @Test func aBondRemovedHereIsMadeAgainAtOnce() {
        var machine = Self.replaying(into: CentralLifecycle(settings: Self.settings()))
        _ = machine.notifyStarted(link: 1, at: .seconds(2))
        _ = machine.readSucceeded(WakeCentralTranscriptTests.wake(1), link: 1, at: .seconds(2))
        let actions = machine.received(
            CentralLifecycleTests.changed(Self.device, ["Paired": .boolean(false)]), at: .seconds(10))
        #expect(
            actions == [
                .disconnect(Self.device), .openPairingWindow(link: 2, hostAddress: Self.hostAddress),
                .report(.pairing(address: Self.address)),
            ])
    }

    /// The remembered board is followed until the cable names another one (the board was swapped).
    @Test func theCableOverridesTheRememberedBoard() {
        let strangerObject = WakeCentralTranscriptTests.deviceProperties(address: Self.strangerAddress)
        let tree = Self.tree(paired: true, extra: [Self.stranger: strangerObject])
        var machine = CentralLifecycle(settings: Self.settings(remembered: Self.strangerAddress))
        _ = machine.bluezOwnerChanged(":1.0", at: .zero)
        _ = machine.discovered(tree, round: 1, at: .zero)
        // The remembered one is linked, though the other sorts first.
        #expect(
            machine.searchStarted(round: 1, at: .zero) == [
                .stopSearch, .connect(Self.stranger, link: 1), .report(.connecting(address: Self.strangerAddress)),
            ])
        #expect(
            machine.cableNamedBoard("00:aa:01:00:12:34", at: .seconds(1)) == [
                .disconnect(Self.stranger), .startSearch(round: 1), .report(.searching),
            ])
        #expect(
            machine.searchStarted(round: 1, at: .seconds(1)) == [
                .stopSearch, .connect(Self.device, link: 2), .report(.connecting(address: Self.address)),
            ])
        // Naming the same board again changes nothing.
        #expect(machine.cableNamedBoard(Self.address, at: .seconds(3)) == [])
    }

    /// A configured address wins over the cable; the mismatch is said, the configured board kept.
    @Test func aConfiguredAddressWinsAndAMismatchIsSaid() {
        var settings = Self.settings()
        settings.boardAddress = Self.strangerAddress
        var machine = CentralLifecycle(settings: settings)
        let said = machine.cableNamedBoard(Self.address, at: .zero)
        #expect(
            said == [
                .problem(
                    "the board on the USB cable is \(Self.address), but [wake] address names \(Self.strangerAddress): "
                        + "following \(Self.strangerAddress)")
            ])
    }

    /// The agent confirms only what bluetoothd asks about the board being paired right now.
    @Test func theAgentConfirmsOnlyThePairingInProgress() {
        var machine = CentralLifecycle(settings: Self.settings())
        _ = machine.bluezOwnerChanged(":1.0", at: .zero)
        _ = machine.discovered(Self.tree(paired: false), round: 1, at: .zero)
        _ = machine.searchStarted(round: 1, at: .zero)
        #expect(!machine.isPairing(Self.device, askedBy: ":1.0"))  // the window is not open yet
        _ = machine.windowOpened(boardAddress: Self.address, link: 1, at: .seconds(1))
        _ = machine.agentRegistered(round: 1, at: .seconds(1))
        #expect(machine.isPairing(Self.device, askedBy: ":1.0"))
        #expect(!machine.isPairing(Self.device, askedBy: ":1.66"))  // not bluetoothd
        #expect(!machine.isPairing(Self.stranger, askedBy: ":1.0"))  // not the board
        #expect(!machine.isPairing(nil, askedBy: ":1.0"))
        _ = machine.pairSucceeded(link: 1, attempt: 1, at: .seconds(2))
        #expect(!machine.isPairing(Self.device, askedBy: ":1.0"))  // done
    }

    /// A board that forgot the bond does not say so: its links just fail (`le-connection-abort-by-local`). At
    /// the first failed link to the bonded board (`suspectBondAfter`, 1), bonding over the cable asks the board
    /// whether it still holds the bond; with a higher setting, the failures before it are only backed off;
    /// without the cable the central only backs off.
    @Test func linksThatKeepFailingToABondedBoardAreTakenForALostBond() {
        let aborted = DBusError.bluez(.failed, "le-connection-abort-by-local")
        func failLinks(_ machine: inout CentralLifecycle, _ count: Int) -> [Action] {
            var last: [Action] = []
            var now = Duration.zero
            for link in 1...UInt64(count) {
                _ = machine.searchStarted(round: 1, at: now)
                _ = machine.received(CentralLifecycleTests.changed(Self.device, ["RSSI": .int16(-40)]), at: now)
                last = machine.connectFailed(link: link, error: aborted, at: now)
                now += .seconds(60)
                _ = machine.timerFired(at: now)
            }
            return last
        }
        var cable = CentralLifecycle(settings: Self.settings())
        _ = cable.bluezOwnerChanged(":1.0", at: .zero)
        _ = cable.discovered(Self.tree(paired: true), round: 1, at: .zero)
        let first = failLinks(&cable, 1)
        #expect(first.contains(.confirmBondLost(link: 1, hostAddress: Self.hostAddress)), "\(first)")
        #expect(!first.contains { if case .removeBond = $0 { true } else { false } }, "not before the board says so")
        #expect(first.contains(.report(.pairing(address: Self.address))))
        var patient = Self.settings()
        patient.suspectBondAfter = 3
        var third = CentralLifecycle(settings: patient)
        _ = third.bluezOwnerChanged(":1.0", at: .zero)
        _ = third.discovered(Self.tree(paired: true), round: 1, at: .zero)
        let asked = failLinks(&third, 3)
        #expect(asked.contains(.confirmBondLost(link: 3, hostAddress: Self.hostAddress)), "\(asked)")
        var second = CentralLifecycle(settings: patient)
        _ = second.bluezOwnerChanged(":1.0", at: .zero)
        _ = second.discovered(Self.tree(paired: true), round: 1, at: .zero)
        #expect(
            failLinks(&second, 2).last == .report(.reconnecting(retryIn: .seconds(2))), "below the setting: backed off")
        var noCable = CentralLifecycle(settings: .init(adapter: "hci0"))
        _ = noCable.bluezOwnerChanged(":1.0", at: .zero)
        _ = noCable.discovered(Self.tree(paired: true), round: 1, at: .zero)
        #expect(failLinks(&noCable, 3).last == .report(.reconnecting(retryIn: .seconds(4))))
    }

    /// A board that forgot the bond does not always fail the `Connect`: bluetoothd answers it once the link is up,
    /// and the encryption with the stale key fails a moment later (the link drops while the services resolve), or
    /// the link stays up and its services never resolve (the real-stack scenario, for 12 minutes of 30 s
    /// timeouts). Either is a link that never became usable: bonding over the cable asks the board, as for a
    /// failed `Connect`; without the cable the central only backs off.
    @Test func aLinkThatNeverBecomesUsableIsTakenForALostBondToo() {
        func linked(_ settings: CentralLifecycle.Settings) -> CentralLifecycle {
            var machine = CentralLifecycle(settings: settings)
            _ = machine.bluezOwnerChanged(":1.0", at: .zero)
            _ = machine.discovered(Self.tree(paired: true), round: 1, at: .zero)
            _ = machine.searchStarted(round: 1, at: .zero)
            _ = machine.connectSucceeded(link: 1, at: .seconds(1))
            return machine
        }
        let asked = CentralLifecycle.Action.confirmBondLost(link: 1, hostAddress: Self.hostAddress)
        var dropped = linked(Self.settings())
        let drop = dropped.received(
            CentralLifecycleTests.changed(Self.device, ["Connected": .boolean(false)]), at: .seconds(2))
        #expect(drop.contains(asked), "\(drop)")
        #expect(drop.contains(.report(.pairing(address: Self.address))))
        var unresolved = linked(Self.settings())
        let timeout = unresolved.timerFired(at: .seconds(31))
        #expect(timeout.first == .disconnect(Self.device))
        #expect(timeout.contains(asked), "\(timeout)")
        var noCable = linked(.init(adapter: "hci0"))
        #expect(noCable.timerFired(at: .seconds(31)).last == .report(.reconnecting(retryIn: .seconds(1))))
        // A link that became usable starts the count again.
        var patient = Self.settings()
        patient.suspectBondAfter = 2
        var used = linked(patient)
        _ = used.timerFired(at: .seconds(31))  // the first unusable link: below the setting
        // The link stayed up: linked again without a Connect, and this time it resolves and is used.
        #expect(used.timerFired(at: .seconds(32)) == [.report(.subscribing(address: Self.address))])
        _ = used.received(
            CentralLifecycleTests.changed(Self.device, ["ServicesResolved": .boolean(true)]), at: .seconds(33))
        _ = used.notifyStarted(link: 2, at: .seconds(33))
        _ = used.readSucceeded(WakeCentralTranscriptTests.wake(1), link: 2, at: .seconds(33))
        let gone: [String: DBusValue] = ["Connected": .boolean(false), "ServicesResolved": .boolean(false)]
        _ = used.received(CentralLifecycleTests.changed(Self.device, gone), at: .seconds(40))
        _ = used.timerFired(at: .seconds(41))
        _ = used.searchStarted(round: 1, at: .seconds(41))
        _ = used.received(CentralLifecycleTests.changed(Self.device, ["RSSI": .int16(-40)]), at: .seconds(41))
        _ = used.connectSucceeded(link: 3, at: .seconds(42))
        let later = used.timerFired(at: .seconds(72))
        #expect(later.first == .disconnect(Self.device))
        #expect(!later.contains { if case .confirmBondLost = $0 { true } else { false } }, "\(later)")
    }

    /// Links that fail as a lost bond makes them are no proof: anybody in radio range can make `Connect` fail
    /// three times, or an encryption fail. The phone drops its half only on the board's word over the cable;
    /// while the board says it still holds the bond, or cannot be asked, the bond stays and the link is retried
    /// with the usual backoff.
    @Test func aBondIsDroppedOnlyOnTheBoardsWord() {
        let aborted = DBusError.bluez(.failed, "le-connection-abort-by-local")
        var patient = Self.settings()
        patient.suspectBondAfter = 3  // the board asked at the third failure: any count holds the rule
        var machine = CentralLifecycle(settings: patient)
        _ = machine.bluezOwnerChanged(":1.0", at: .zero)
        _ = machine.discovered(Self.tree(paired: true), round: 1, at: .zero)
        var now = Duration.zero
        func failThreeLinks() -> [Action] {
            var last: [Action] = []
            for _ in 1...3 {
                now += .seconds(120)
                _ = machine.timerFired(at: now)
                _ = machine.searchStarted(round: 1, at: now)
                _ = machine.received(CentralLifecycleTests.changed(Self.device, ["RSSI": .int16(-40)]), at: now)
                last = machine.connectFailed(link: machine.link, error: aborted, at: now)
            }
            return last
        }
        let suspicion =
            "connecting to \(Self.address) failed: \(aborted); 3 unusable links in a row: the board may no longer know this bond"
        #expect(failThreeLinks().contains(.confirmBondLost(link: 3, hostAddress: Self.hostAddress)))
        let kept = machine.boardKeptBond(link: 3, at: now)
        #expect(kept.first == .problem("\(suspicion); the board still holds this host's bond, so it is kept"))
        #expect(!kept.contains { if case .removeBond = $0 { true } else { false } })
        #expect(machine.boardForgotBond(link: 3, at: now) == [], "a late word for a link given up")
        // The cable cannot be asked: the bond stays too.
        #expect(failThreeLinks().contains(.confirmBondLost(link: 6, hostAddress: Self.hostAddress)))
        let unasked = machine.windowFailed("the board is unreachable", link: 6, at: now)
        #expect(!unasked.contains { if case .removeBond = $0 { true } else { false } })
        if case .report(.reconnecting) = unasked.last {} else { Issue.record("\(unasked)") }
    }

    /// A central of `settings` on link 1 to the bonded board, StartNotify sent at 2 s.
    static func replaying(into machine: CentralLifecycle) -> CentralLifecycle {
        var machine = machine
        _ = machine.bluezOwnerChanged(":1.0", at: .zero)
        _ = machine.discovered(CentralLifecycleTests.tree, round: 1, at: .zero)
        _ = machine.searchStarted(round: 1, at: .zero)
        _ = machine.connectSucceeded(link: 1, at: .seconds(1))
        _ = machine.received(
            CentralLifecycleTests.changed(device, ["ServicesResolved": .boolean(true)]), at: .seconds(2))
        return machine
    }
}
