import DBusModel
import Retry
import Testing
import WireFormat

@testable import BlueZ

/// The peripheral lifecycle alone: timeline tables of events, times and the actions they produce.
@Suite("PeripheralLifecycle")
struct PeripheralLifecycleTests {
    typealias Action = PeripheralLifecycle.Action
    static let adapterPath: DBusObjectPath = "/org/bluez/hci0"
    static let readyTree: DBusManagedObjects = [adapterPath: FakeBlueZ.adapter()]

    /// A lifecycle that has just finished a full registration in round 1.
    static func registered() -> PeripheralLifecycle {
        var machine = PeripheralLifecycle(settings: .init(adapterPath: adapterPath))
        _ = machine.bluezOwnerChanged(":1.0", at: .zero)
        _ = machine.discovered(readyTree, round: 1, at: .zero)
        for step in [PeripheralLifecycle.Step.adapterPolicy, .agent, .application, .advertisement] {
            _ = machine.stepSucceeded(step, round: 1, at: .zero)
        }
        return machine
    }

    @Test func backoffDoublesToItsCap() {
        let backoff = Backoff(base: .seconds(1), cap: .seconds(30))
        let table: [(Int, Duration)] = [
            (0, .seconds(1)), (1, .seconds(1)), (2, .seconds(2)), (3, .seconds(4)), (4, .seconds(8)),
            (5, .seconds(16)), (6, .seconds(30)), (40, .seconds(30)),
        ]
        for (failures, delay) in table {
            #expect(backoff.delay(afterFailures: failures) == delay, "after \(failures) failures")
        }
    }

    @Test func registrationTimelineWithFailures() {
        var machine = PeripheralLifecycle(settings: .init(adapterPath: Self.adapterPath))
        let failed = DBusError.bluez(.failed, "busy")
        // (time, event, expected actions, expected next deadline)
        let timeline: [(Duration, (inout PeripheralLifecycle, Duration) -> [Action], [Action], Duration?)] = [
            (.zero, { $0.bluezOwnerChanged(":1.0", at: $1) }, [.discover(round: 1)], nil),
            (
                .milliseconds(5), { $0.discovered(Self.readyTree, round: 1, at: $1) },
                [.applyAdapterPolicy(round: 1, pairable: false, pairableTimeoutSeconds: 0)], nil
            ),
            (.milliseconds(6), { $0.stepSucceeded(.adapterPolicy, round: 1, at: $1) }, [.registerAgent(round: 1)], nil),
            (.milliseconds(7), { $0.stepSucceeded(.agent, round: 1, at: $1) }, [.registerApplication(round: 1)], nil),
            (.seconds(10), { $0.stepFailed(.application, round: 1, error: failed, at: $1) }, [], .seconds(11)),
            (.milliseconds(10_500), { $0.timerFired(at: $1) }, [], .seconds(11)),
            (.seconds(11), { $0.timerFired(at: $1) }, [.registerApplication(round: 1)], nil),
            (.seconds(12), { $0.stepFailed(.application, round: 1, error: failed, at: $1) }, [], .seconds(14)),
            (.seconds(14), { $0.timerFired(at: $1) }, [.registerApplication(round: 1)], nil),
            (
                .seconds(14), { $0.stepSucceeded(.application, round: 1, at: $1) }, [.registerAdvertisement(round: 1)],
                nil
            ),
            // A late answer from an old round changes nothing.
            (.seconds(15), { $0.stepSucceeded(.advertisement, round: 0, at: $1) }, [], nil),
            (.seconds(15), { $0.stepFailed(.advertisement, round: 1, error: failed, at: $1) }, [], .seconds(16)),
            (.seconds(16), { $0.timerFired(at: $1) }, [.registerAdvertisement(round: 1)], nil),
            (.seconds(16), { $0.stepSucceeded(.advertisement, round: 1, at: $1) }, [], nil),
        ]
        for (index, (time, event, actions, deadline)) in timeline.enumerated() {
            #expect(event(&machine, time) == actions, "row \(index) at \(time)")
            #expect(machine.nextDeadline == deadline, "row \(index) deadline")
        }
        #expect(machine.facts(at: .seconds(16)).advertising)
    }

    @Test func bluetoothdRestartStartsOverAndIgnoresTheOldRound() {
        var machine = Self.registered()
        #expect(machine.bluezOwnerChanged(nil, at: .seconds(1)) == [])
        #expect(!machine.facts(at: .seconds(1)).gattRegistered)
        #expect(machine.stepSucceeded(.application, round: 1, at: .seconds(1)) == [])
        #expect(machine.bluezOwnerChanged(":1.5", at: .seconds(2)) == [.discover(round: 3)])
        #expect(machine.discovered(Self.readyTree, round: 2, at: .seconds(2)) == [], "answer from round 2")
        #expect(
            machine.discovered(Self.readyTree, round: 3, at: .seconds(2))
                == [.applyAdapterPolicy(round: 3, pairable: false, pairableTimeoutSeconds: 0)])
    }

    @Test func powerCycleKeepsTheAgent() {
        var machine = Self.registered()
        let off = BlueZSignal.propertiesChanged(
            Self.adapterPath, interface: BlueZNames.adapter, changed: ["Powered": .boolean(false)], invalidated: [])
        let on = BlueZSignal.propertiesChanged(
            Self.adapterPath, interface: BlueZNames.adapter, changed: ["Powered": .boolean(true)], invalidated: [])
        #expect(machine.received(off, at: .seconds(1)) == [])
        #expect(machine.round == 2)
        #expect(
            machine.received(on, at: .seconds(2))
                == [.applyAdapterPolicy(round: 2, pairable: false, pairableTimeoutSeconds: 0)])
        #expect(machine.stepSucceeded(.adapterPolicy, round: 2, at: .seconds(2)) == [.registerApplication(round: 2)])
        // Another adapter's power is none of our business.
        let other = BlueZSignal.propertiesChanged(
            "/org/bluez/hci1", interface: BlueZNames.adapter, changed: ["Powered": .boolean(false)], invalidated: [])
        #expect(machine.received(other, at: .seconds(3)) == [])
        #expect(machine.round == 2)
    }

    static let phone: DBusObjectPath = "/org/bluez/hci0/dev_00_AA_01_01_00_01"
    static let stranger: DBusObjectPath = "/org/bluez/hci0/dev_66_66_66_66_66_66"
    static func paired(_ device: DBusObjectPath) -> BlueZSignal {
        .propertiesChanged(device, interface: BlueZNames.device, changed: ["Paired": .boolean(true)], invalidated: [])
    }

    /// `actions` as a bluetoothd that answers every `Pairable` and `RemoveDevice` call at once would leave them:
    /// the actions, followed by what each answer brought (at `now`), and the answer to request `request`.
    static func answering(
        _ machine: inout PeripheralLifecycle, _ actions: [Action], request: UInt64 = 1, at now: Duration
    ) -> (answer: PairingOutcome?, actions: [Action]) {
        var pending = actions
        var performed: [Action] = []
        var answer: PairingOutcome?
        while !pending.isEmpty {
            let action = pending.removeFirst()
            switch action {
            case .setPairable(_, _, let round):
                performed.append(action)
                pending += machine.pairableSet(round: round, error: nil, at: now)
            case .forgetDevice(let device, let round):
                performed.append(action)
                pending += machine.deviceForgotten(device, round: round, error: nil, at: now)
            case .answerPairing(request, let given):
                answer = given
            default:
                performed.append(action)
            }
        }
        return (answer, performed)
    }

    /// A request for a window, with bluetoothd answering at once.
    static func open(
        _ machine: inout PeripheralLifecycle, for requested: Duration, forgetting phone: String? = nil,
        at now: Duration
    ) -> (answer: PairingOutcome?, actions: [Action]) {
        let (immediate, actions) = machine.openPairingWindow(for: requested, forgetting: phone, request: 1, at: now)
        let (answer, performed) = answering(&machine, actions, at: now)
        return (immediate ?? answer, performed)
    }

    /// The race a first bond lost: the window answered "open" at once while `RemoveDevice` of the phone's
    /// stale bond and `Pairable=true` were still on their way, so the phone's `Pair` ran against both, and the
    /// removal, completing after the new bond, took it with it. Now the answer waits for both replies, nobody
    /// may pair before it, and nothing the window started is left to undo the bond made inside it.
    @Test func theWindowAnswersOpenOnlyOnceTheStaleBondIsGoneAndTheAdapterPairable() {
        var machine = Self.registered()
        typealias Event = (inout PeripheralLifecycle, Duration) -> [Action]
        let opened = Action.answerPairing(request: 7, .open(closesIn: .milliseconds(119_800)))
        // (time, event, actions, may the phone pair after it)
        let timeline: [(Duration, Event, [Action], Bool)] = [
            (
                .seconds(10),
                { machine, now in
                    let (answer, actions) = machine.openPairingWindow(
                        for: .seconds(120), forgetting: "00:AA:01:01:00:01", request: 7, at: now)
                    #expect(answer == nil, "no answer before bluetoothd confirmed the window")
                    return actions
                },
                [
                    .announceDiscoverable(true), .forgetDevice(Self.phone, round: 1),
                    .setPairable(true, timeoutSeconds: 120, round: 1),
                ], false
            ),
            (.milliseconds(10_100), { $0.pairableSet(round: 1, error: nil, at: $1) }, [], false),
            // An answer for another device, or from an earlier bluetoothd, does not count.
            (.milliseconds(10_150), { $0.deviceForgotten(Self.stranger, round: 1, error: nil, at: $1) }, [], false),
            (.milliseconds(10_150), { $0.deviceForgotten(Self.phone, round: 0, error: nil, at: $1) }, [], false),
            (
                .milliseconds(10_200),
                { $0.deviceForgotten(Self.phone, round: 1, error: .bluez(.doesNotExist, "Does Not Exist"), at: $1) },
                [opened], true
            ),
            // The phone pairs; its bond closes the window, and nothing follows that could remove it.
            (
                .seconds(13), { $0.received(Self.paired(Self.phone), at: $1) },
                [.setPairable(false, timeoutSeconds: 0, round: 1), .announceDiscoverable(false)], false
            ),
            (.milliseconds(13_100), { $0.pairableSet(round: 1, error: nil, at: $1) }, [], false),
            (.seconds(200), { $0.timerFired(at: $1) }, [], false),
        ]
        for (time, event, actions, mayPair) in timeline {
            #expect(event(&machine, time) == actions, "at \(time)")
            #expect(
                machine.authorizesPairing(of: Self.phone, askedBy: ":1.0", at: time) == mayPair, "at \(time)")
        }
    }

    /// The same race from the other side: `Pairable=false` of the last window still on its way when the next
    /// opens. Calls go one at a time, so `Pairable=true` is sent after it and the window answers only then.
    @Test func pairableCallsGoOneAtATime() {
        var machine = Self.registered()
        _ = Self.open(&machine, for: .seconds(5), at: .zero)
        #expect(
            machine.timerFired(at: .seconds(5)) == [
                .setPairable(false, timeoutSeconds: 0, round: 1), .announceDiscoverable(false),
            ])
        let (answer, actions) = machine.openPairingWindow(for: .seconds(60), request: 2, at: .seconds(16))
        #expect(answer == nil && actions == [.announceDiscoverable(true)], "Pairable=false is not answered yet")
        #expect(
            machine.pairableSet(round: 1, error: nil, at: .seconds(17)) == [
                .setPairable(true, timeoutSeconds: 59, round: 1)
            ])
        #expect(!machine.authorizesPairing(of: Self.phone, askedBy: ":1.0", at: .seconds(17)))
        #expect(
            machine.pairableSet(round: 1, error: nil, at: .seconds(18)) == [
                .answerPairing(request: 2, .open(closesIn: .seconds(58)))
            ])
    }

    /// The first `Pair` that stalled 5 s: the advertisement turned discoverable only once the window was ready,
    /// so bluetoothd rebuilt it (the advertising set off, its parameters, then its data, then on again) just as
    /// the phone's `Pair`, which follows the answer, began. On the real stack, where one bluetoothd serves both
    /// ends, the rebuild's second half waited in bluetoothd's management queue behind the phone's pairing, and
    /// the pairing for the board to advertise again, until the phone gave its `Pair` up. Now the advertisement
    /// turns discoverable first, before the calls that make the window ready, so it is rebuilt before the
    /// window answers; a window given up turns it back.
    @Test func theAdvertisementIsDiscoverableBeforeTheWindowAnswersOpen() {
        var machine = Self.registered()
        let (answer, actions) = machine.openPairingWindow(
            for: .seconds(120), forgetting: "00:AA:01:01:00:01", request: 1, at: .seconds(10))
        #expect(answer == nil)
        #expect(
            actions == [
                .announceDiscoverable(true), .forgetDevice(Self.phone, round: 1),
                .setPairable(true, timeoutSeconds: 120, round: 1),
            ])
        #expect(machine.advertisesDiscoverable, "bluetoothd reading the advertisement again sees it too")
        #expect(!machine.authorizesPairing(of: Self.phone, askedBy: ":1.0", at: .seconds(10)), "not ready yet")
        #expect(machine.pairableSet(round: 1, error: nil, at: .milliseconds(10_100)) == [])
        #expect(
            machine.deviceForgotten(Self.phone, round: 1, error: nil, at: .milliseconds(10_200)) == [
                .answerPairing(request: 1, .open(closesIn: .milliseconds(119_800)))
            ], "nothing left to change when the phone pairs")

        var silent = Self.registered()
        _ = silent.openPairingWindow(for: .seconds(60), forgetting: "00:AA:01:01:00:01", request: 2, at: .zero)
        #expect(
            silent.timerFired(at: .milliseconds(2500)) == [
                .answerPairing(
                    request: 2,
                    .failed(
                        "bluetoothd did not answer the removal of the stale bond with \(Self.phone.rawValue) in time")),
                .announceDiscoverable(false),
            ])
        #expect(!silent.advertisesDiscoverable)
    }

    /// A window that cannot be made ready fails closed: the requests hear why, it closes (and cools down), and
    /// nobody may pair in it: a stale bond that was not forgotten, or bluetoothd that does not answer in time.
    @Test func aWindowThatCannotBeMadeReadyIsGivenUp() {
        let busy = DBusError.bluez(.failed, "busy")
        var refused = Self.registered()
        _ = refused.openPairingWindow(for: .seconds(60), forgetting: "00:AA:01:01:00:01", request: 3, at: .zero)
        _ = refused.pairableSet(round: 1, error: nil, at: .milliseconds(10))
        let why = "the board's stale bond with the phone could not be forgotten: \(busy)"
        #expect(
            refused.deviceForgotten(Self.phone, round: 1, error: busy, at: .milliseconds(20)) == [
                .answerPairing(request: 3, .failed(why)), .setPairable(false, timeoutSeconds: 0, round: 1),
                .announceDiscoverable(false),
            ])
        #expect(!refused.authorizesPairing(of: Self.phone, askedBy: ":1.0", at: .seconds(1)))
        #expect(refused.facts(at: .seconds(1)).pairingClosesIn == nil)

        var silent = Self.registered()
        let (answer, _) = silent.openPairingWindow(
            for: .seconds(60), forgetting: "00:AA:01:01:00:01", request: 4, at: .zero)
        #expect(answer == nil && silent.nextDeadline == .milliseconds(2500))
        #expect(
            silent.timerFired(at: .milliseconds(2500)) == [
                .answerPairing(
                    request: 4,
                    .failed(
                        "bluetoothd did not answer the removal of the stale bond with \(Self.phone.rawValue) in time")),
                .announceDiscoverable(false),
            ], "Pairable=true is still in flight: false follows its answer")
        #expect(
            silent.pairableSet(round: 1, error: nil, at: .seconds(3)) == [
                .setPairable(false, timeoutSeconds: 0, round: 1)
            ])
        #expect(!silent.authorizesPairing(of: Self.phone, askedBy: ":1.0", at: .seconds(3)))
        #expect(silent.deviceForgotten(Self.phone, round: 1, error: nil, at: .seconds(4)) == [], "too late")
        let again = silent.openPairingWindow(for: .seconds(60), request: 5, at: .seconds(5))
        #expect(again.answer == .coolingDown(retryIn: .milliseconds(7500)))

        // bluetoothd restarting while the window is being opened: its answers are gone with it.
        var restarted = Self.registered()
        _ = restarted.openPairingWindow(for: .seconds(60), forgetting: "00:AA:01:01:00:01", request: 6, at: .zero)
        #expect(
            restarted.bluezOwnerChanged(":1.9", at: .seconds(1)) == [
                .answerPairing(request: 6, .failed("bluetoothd restarted while the window was being opened")),
                .announceDiscoverable(false), .discover(round: 2),
            ])
    }

    /// A phone whose links fail while it still holds its bond asks `unlessBonded`: the board's word decides.
    /// While bluetoothd says the board holds a bond with it, no window opens and nothing is forgotten (so
    /// nobody in radio range can make the phone drop a working bond); once the board lost it, the window
    /// opens as for a phone without a bond.
    @Test func aPhoneThatStillHoldsABondHearsTheBoardsWord() {
        var machine = Self.registered()
        let device: [String: [String: DBusValue]] = [
            BlueZNames.device: ["Address": .string("00:AA:01:01:00:01"), "Paired": .boolean(true)]
        ]
        #expect(machine.received(.interfacesAdded(Self.phone, device), at: .seconds(1)) == [])
        let kept = machine.openPairingWindow(
            for: .seconds(120), forgetting: "00:AA:01:01:00:01", unlessBonded: true, request: 1, at: .seconds(2))
        #expect(kept.answer == .bondKept && kept.actions.isEmpty)
        #expect(machine.facts(at: .seconds(2)).pairingClosesIn == nil && machine.nextDeadline == nil)
        let nameless = machine.openPairingWindow(for: .seconds(120), unlessBonded: true, request: 2, at: .seconds(2))
        #expect(nameless.answer == .failed("a phone that asks whether its bond is lost must name its address"))
        // The board forgets it (reset, state wiped): now the window opens.
        _ = machine.received(.interfacesRemoved(Self.phone, [BlueZNames.device]), at: .seconds(3))
        let opened = machine.openPairingWindow(
            for: .seconds(120), forgetting: "00:AA:01:01:00:01", unlessBonded: true, request: 3, at: .seconds(4))
        #expect(opened.answer == nil)
        #expect(
            opened.actions == [
                .announceDiscoverable(true), .forgetDevice(Self.phone, round: 1),
                .setPairable(true, timeoutSeconds: 120, round: 1),
            ])
        // A bond that turned Paired=false counts as gone too; one in the first tree read counts as held.
        var fromTree = PeripheralLifecycle(settings: .init(adapterPath: Self.adapterPath))
        _ = fromTree.bluezOwnerChanged(":1.0", at: .zero)
        _ = fromTree.discovered([Self.adapterPath: FakeBlueZ.adapter(), Self.phone: device], round: 1, at: .zero)
        let held = fromTree.openPairingWindow(
            for: .seconds(60), forgetting: "00:AA:01:01:00:01", unlessBonded: true, request: 1, at: .zero)
        #expect(held.answer == .bondKept)
        let unpaired = BlueZSignal.propertiesChanged(
            Self.phone, interface: BlueZNames.device, changed: ["Paired": .boolean(false)], invalidated: [])
        _ = fromTree.received(unpaired, at: .seconds(1))
        let gone = fromTree.openPairingWindow(
            for: .seconds(60), forgetting: "00:AA:01:01:00:01", unlessBonded: true, request: 2, at: .seconds(1))
        #expect(gone.answer == nil, "opening")
    }

    /// Asked whether it still holds a phone's bond before bluetoothd's devices are known (its tree not read yet,
    /// or bluetoothd gone), the board cannot tell: it fails, so the phone keeps its half, and opens no window.
    @Test func aBoardThatCannotTellWhetherItHoldsTheBondFailsClosed() {
        var machine = PeripheralLifecycle(settings: .init(adapterPath: Self.adapterPath))
        _ = machine.bluezOwnerChanged(":1.0", at: .zero)
        let unread = machine.openPairingWindow(
            for: .seconds(60), forgetting: "00:AA:01:01:00:01", unlessBonded: true, request: 1, at: .zero)
        #expect(unread.answer == .failed("bluetoothd's devices are not known yet: the board cannot tell"))
        #expect(unread.actions.isEmpty && machine.nextDeadline == nil)
        var restarted = Self.registered()
        _ = restarted.bluezOwnerChanged(":1.9", at: .seconds(5))
        let gone = restarted.openPairingWindow(
            for: .seconds(60), forgetting: "00:AA:01:01:00:01", unlessBonded: true, request: 2, at: .seconds(5))
        #expect(gone.answer == .failed("bluetoothd's devices are not known yet: the board cannot tell"))
        #expect(restarted.facts(at: .seconds(5)).pairingClosesIn == nil)
    }

    /// The phone that asks names its own adapter: the board forgets its stale half of a bond with it when a
    /// window opens, and only then (not while cooling down, not for an extension, not for something that is
    /// not an address).
    @Test func aWindowForAPhoneForgetsTheBoardsStaleBondWithIt() {
        var machine = Self.registered()
        let opening = Self.open(&machine, for: .seconds(60), forgetting: "00:aa:01:01:00:01", at: .seconds(10))
        #expect(opening.answer == .open(closesIn: .seconds(60)))
        #expect(
            opening.actions == [
                .announceDiscoverable(true), .forgetDevice(Self.phone, round: 1),
                .setPairable(true, timeoutSeconds: 60, round: 1),
            ])
        // Asked again inside the window (the phone's request timed out and it asks again): extended, nothing
        // forgotten, so a bond made meanwhile stays.
        let extended = Self.open(&machine, for: .seconds(60), forgetting: "00:AA:01:01:00:01", at: .seconds(12))
        #expect(extended.answer == .open(closesIn: .seconds(60)))
        #expect(extended.actions == [.setPairable(true, timeoutSeconds: 60, round: 1)])
        _ = machine.timerFired(at: .seconds(72))
        let cooling = machine.openPairingWindow(
            for: .seconds(60), forgetting: "00:AA:01:01:00:01", request: 2, at: .seconds(73))
        #expect(cooling.answer == .coolingDown(retryIn: .seconds(61)) && cooling.actions.isEmpty)
        let junk = Self.open(&machine, for: .seconds(60), forgetting: "../../hci1", at: .seconds(200))
        #expect(!junk.actions.contains { if case .forgetDevice = $0 { true } else { false } })
    }

    /// A window opened for a named phone host lets only that device pair, and only bluetoothd may ask; one
    /// opened without a name (the manual route) lets any device pair while it is open.
    @Test func aWindowForAPhoneAcceptsOnlyThatPhoneAskedByBluetoothd() {
        var machine = Self.registered()
        _ = Self.open(&machine, for: .seconds(60), forgetting: "00:AA:01:01:00:01", at: .seconds(10))
        #expect(machine.authorizesPairing(of: Self.phone, askedBy: ":1.0", at: .seconds(11)))
        #expect(!machine.authorizesPairing(of: Self.phone, askedBy: ":1.66", at: .seconds(11)), "not bluetoothd")
        #expect(!machine.authorizesPairing(of: Self.phone, askedBy: nil, at: .seconds(11)))
        #expect(!machine.authorizesPairing(of: Self.stranger, askedBy: ":1.0", at: .seconds(11)))
        #expect(!machine.authorizesPairing(of: nil, askedBy: ":1.0", at: .seconds(11)))
        var manual = Self.registered()
        _ = Self.open(&manual, for: .seconds(60), at: .seconds(10))
        #expect(manual.authorizesPairing(of: Self.stranger, askedBy: ":1.0", at: .seconds(11)))
        #expect(!manual.authorizesPairing(of: Self.stranger, askedBy: ":1.66", at: .seconds(11)))
    }

    /// A device the window was not for that bonds all the same (bluetoothd can let a Just Works pairing through
    /// without asking the agent) neither takes the window nor keeps its bond: the board forgets it, and the
    /// window stays open for the phone it was opened for.
    @Test func aStrangersBondInsideAWindowIsForgottenAndTheWindowStays() {
        var machine = Self.registered()
        _ = Self.open(&machine, for: .seconds(60), forgetting: "00:AA:01:01:00:01", at: .seconds(10))
        #expect(
            machine.received(Self.paired(Self.stranger), at: .seconds(12)) == [
                .forgetDevice(Self.stranger, round: 1)
            ])
        #expect(machine.authorizesPairing(of: Self.phone, askedBy: ":1.0", at: .seconds(13)))
        #expect(machine.facts(at: .seconds(13)).pairingClosesIn == .seconds(57))
        #expect(machine.deviceForgotten(Self.stranger, round: 1, error: nil, at: .seconds(13)) == [])
        #expect(
            machine.received(Self.paired(Self.phone), at: .seconds(14)) == [
                .setPairable(false, timeoutSeconds: 0, round: 1), .announceDiscoverable(false),
            ])
    }

    @Test func pairingWindowTimeline() {
        var machine = Self.registered()
        #expect(!machine.authorizesPairing(of: nil, askedBy: ":1.0", at: .seconds(10)))
        let opening = Self.open(&machine, for: .seconds(600), at: .seconds(10))
        #expect(opening.answer == .open(closesIn: .seconds(300)), "capped at 300 s")
        #expect(opening.actions == [.announceDiscoverable(true), .setPairable(true, timeoutSeconds: 300, round: 1)])
        #expect(machine.advertisesDiscoverable && machine.nextDeadline == .seconds(310))
        #expect(machine.authorizesPairing(of: nil, askedBy: ":1.0", at: .seconds(309)))
        #expect(machine.facts(at: .seconds(110)).pairingClosesIn == .seconds(200))
        #expect(!machine.authorizesPairing(of: nil, askedBy: ":1.0", at: .seconds(310)))
        #expect(machine.timerFired(at: .seconds(200)) == [])
        #expect(
            machine.timerFired(at: .seconds(310)) == [
                .setPairable(false, timeoutSeconds: 0, round: 1), .announceDiscoverable(false),
            ])
        #expect(!machine.advertisesDiscoverable && machine.nextDeadline == nil)
    }

    /// Requests while a window is open extend it, never shorten it, and never past 300 s after it opened.
    @Test func pairingWindowExtendsOnlyUpToItsLimit() {
        var machine = Self.registered()
        let pairable = { (seconds: UInt32) in Action.setPairable(true, timeoutSeconds: seconds, round: 1) }
        // (time, seconds asked, answer, actions, when the window closes)
        let timeline: [(Duration, Duration, PairingOutcome, [Action], Duration)] = [
            (
                .zero, .seconds(120), .open(closesIn: .seconds(120)), [.announceDiscoverable(true), pairable(120)],
                .seconds(120)
            ),
            (.seconds(100), .seconds(120), .open(closesIn: .seconds(120)), [pairable(120)], .seconds(220)),
            // A shorter request does not shorten it.
            (.seconds(150), .seconds(30), .open(closesIn: .seconds(70)), [], .seconds(220)),
            // Asked past the limit: up to 300 s after the window opened, no further.
            (.seconds(200), .seconds(300), .open(closesIn: .seconds(100)), [pairable(100)], .seconds(300)),
            (.milliseconds(250_500), .seconds(120), .open(closesIn: .milliseconds(49_500)), [], .seconds(300)),
            (.seconds(299), .seconds(300), .open(closesIn: .seconds(1)), [], .seconds(300)),
        ]
        for (time, asked, answer, actions, closes) in timeline {
            let opening = Self.open(&machine, for: asked, at: time)
            #expect(opening.answer == answer, "at \(time)")
            #expect(opening.actions == actions, "at \(time)")
            #expect(machine.nextDeadline == closes, "at \(time)")
        }
        #expect(machine.authorizesPairing(of: nil, askedBy: ":1.0", at: .milliseconds(299_999)))
        #expect(!machine.authorizesPairing(of: nil, askedBy: ":1.0", at: .seconds(300)))
        #expect(
            machine.timerFired(at: .seconds(300)) == [
                .setPairable(false, timeoutSeconds: 0, round: 1), .announceDiscoverable(false),
            ])
        #expect(machine.nextDeadline == nil, "no timer for the cool-down: nothing happens when it ends")
    }

    /// After a window closes, the next one waits as long as the last was open, at least 10 s.
    @Test func aClosedWindowCoolsDownAsLongAsItWasOpen() {
        var machine = Self.registered()
        let closing: (UInt64) -> [Action] = { round in
            [.setPairable(false, timeoutSeconds: 0, round: round), .announceDiscoverable(false)]
        }
        let opening: (UInt64) -> [Action] = { round in
            [.announceDiscoverable(true), .setPairable(true, timeoutSeconds: 120, round: round)]
        }
        let paired = Self.paired("/org/bluez/hci0/dev_00_AA_01_00_99_99")
        // (time, event, answer to a request at that time or nil for another event, actions)
        typealias Event = (inout PeripheralLifecycle, Duration) -> (PairingOutcome?, [Action])
        let asked: (Duration) -> Event = { seconds in
            { machine, now in Self.open(&machine, for: seconds, at: now) }
        }
        let request = asked(.seconds(120))
        let timer: Event = { machine, now in (nil, Self.answering(&machine, machine.timerFired(at: now), at: now).1) }
        let bond: Event = { machine, now in
            (nil, Self.answering(&machine, machine.received(paired, at: now), at: now).1)
        }
        let restart: Event = { machine, now in
            // bluetoothd comes back and the board registers again.
            _ = machine.bluezOwnerChanged(":1.7", at: now)
            _ = machine.discovered(Self.readyTree, round: 2, at: now)
            for step in [PeripheralLifecycle.Step.adapterPolicy, .agent, .application, .advertisement] {
                _ = machine.stepSucceeded(step, round: 2, at: now)
            }
            return (nil, [])
        }
        let timeline: [(Duration, Event, PairingOutcome?, [Action])] = [
            // Opened at 0, extended to its 300 s limit, closed by the timer: closed until 600.
            (.zero, request, .open(closesIn: .seconds(120)), opening(1)),
            (
                .seconds(100), asked(.seconds(300)), .open(closesIn: .seconds(200)),
                [.setPairable(true, timeoutSeconds: 200, round: 1)]
            ),
            (.seconds(300), timer, nil, closing(1)),
            (.seconds(301), request, .coolingDown(retryIn: .seconds(299)), []),
            // bluetoothd restarting is no way around it.
            (.seconds(400), restart, nil, []),
            (.milliseconds(599_500), request, .coolingDown(retryIn: .milliseconds(500)), []),
            (.seconds(600), request, .open(closesIn: .seconds(120)), opening(2)),
        ]
        for (time, event, answer, actions) in timeline {
            let (got, performed) = event(&machine, time)
            #expect(got == answer, "at \(time)")
            #expect(performed == actions, "at \(time)")
        }

        // A bond after 3 s closes the window; the next may open 10 s later, not 3 s later.
        var bonded = Self.registered()
        let bondTimeline: [(Duration, Event, PairingOutcome?, [Action])] = [
            (.seconds(1000), request, .open(closesIn: .seconds(120)), opening(1)),
            (.seconds(1003), bond, nil, closing(1)),
            (.seconds(1006), request, .coolingDown(retryIn: .seconds(7)), []),
            (.seconds(1013), request, .open(closesIn: .seconds(120)), opening(1)),
        ]
        for (time, event, answer, actions) in bondTimeline {
            let (got, performed) = event(&bonded, time)
            #expect(got == answer, "at \(time)")
            #expect(performed == actions, "at \(time)")
        }
    }

    /// A request that arrives after the window's end but before its timer fired finds it closed.
    @Test func aWindowPastItsEndIsClosedBeforeTheTimerFires() {
        var machine = Self.registered()
        _ = Self.open(&machine, for: .seconds(60), at: .zero)
        let late = machine.openPairingWindow(for: .seconds(60), request: 2, at: .seconds(70))
        #expect(late.answer == .coolingDown(retryIn: .seconds(50)), "closed at 60, as long again: 120")
        #expect(late.actions == [.setPairable(false, timeoutSeconds: 0, round: 1), .announceDiscoverable(false)])
        #expect(!machine.advertisesDiscoverable && machine.nextDeadline == nil)
        #expect(machine.timerFired(at: .seconds(70)) == [])
    }

    @Test func firstBondClosesThePairingWindow() {
        var machine = Self.registered()
        _ = Self.open(&machine, for: .milliseconds(60_500), at: .zero)
        let paired = Self.paired("/org/bluez/hci0/dev_00_AA_01_00_99_99")
        #expect(
            machine.received(paired, at: .seconds(5)) == [
                .setPairable(false, timeoutSeconds: 0, round: 1), .announceDiscoverable(false),
            ])
        #expect(!machine.authorizesPairing(of: nil, askedBy: ":1.0", at: .seconds(6)))
        #expect(machine.received(paired, at: .seconds(7)) == [], "a second bond finds it closed")
    }

    /// A window asked for before the board is registered is made pairable by the policy step, and answers
    /// once that step is done.
    @Test func pairingRequestedBeforeRegistrationIsAppliedByThePolicyStep() {
        var machine = PeripheralLifecycle(settings: .init(adapterPath: Self.adapterPath))
        let opening = machine.openPairingWindow(for: .milliseconds(90_200), request: 1, at: .zero)
        #expect(opening.answer == nil && opening.actions == [.announceDiscoverable(true)])
        _ = machine.bluezOwnerChanged(":1.0", at: .seconds(1))
        #expect(
            machine.discovered(Self.readyTree, round: 1, at: .seconds(1))
                == [.applyAdapterPolicy(round: 1, pairable: true, pairableTimeoutSeconds: 90)])
        #expect(
            machine.stepSucceeded(.adapterPolicy, round: 1, at: .seconds(2)) == [
                .answerPairing(request: 1, .open(closesIn: .milliseconds(88_200))), .registerAgent(round: 1),
            ])
    }

    @Test func notifySessionsBelongToTheCurrentBluetoothd() {
        var machine = Self.registered()
        #expect(throws: Never.self) { try machine.startNotify(from: ":1.0").get() }
        #expect(throws: Never.self) { try machine.startNotify(from: ":1.0").get() }
        #expect(machine.isNotifying)
        #expect(throws: DBusError.self) { try machine.stopNotify(from: ":1.3").get() }
        #expect(machine.isNotifying)
        _ = machine.bluezOwnerChanged(":1.4", at: .seconds(1))
        #expect(!machine.isNotifying)
    }
}
