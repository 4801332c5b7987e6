import DBusModel
import Testing

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

    /// The phone that asks names its own adapter: the board forgets its stale half of a bond with it as the
    /// window opens, and only then (not while cooling down, not for something that is not an address).
    @Test func aWindowForAPhoneForgetsTheBoardsStaleBondWithIt() {
        var machine = Self.registered()
        let opening = machine.openPairingWindow(for: .seconds(60), forgetting: "00:aa:01:01:00:01", at: .seconds(10))
        #expect(
            opening.actions == [
                .forgetDevice("/org/bluez/hci0/dev_00_AA_01_01_00_01"), .setPairable(true, timeoutSeconds: 60),
                .announceDiscoverable(true),
            ])
        _ = machine.timerFired(at: .seconds(70))
        let cooling = machine.openPairingWindow(for: .seconds(60), forgetting: "00:AA:01:01:00:01", at: .seconds(71))
        #expect(cooling.answer == .coolingDown(retryIn: .seconds(59)) && cooling.actions.isEmpty)
        let junk = machine.openPairingWindow(for: .seconds(60), forgetting: "../../hci1", at: .seconds(200))
        #expect(!junk.actions.contains { if case .forgetDevice = $0 { true } else { false } })
    }

    /// A window opened for a named phone host lets only that device pair; one opened without a name (the
    /// manual route) lets any device pair while it is open.
    @Test func aWindowForAPhoneAcceptsOnlyThatPhone() {
        var machine = Self.registered()
        _ = machine.openPairingWindow(for: .seconds(60), forgetting: "00:AA:01:01:00:01", at: .seconds(10))
        #expect(machine.authorizesPairing(of: "/org/bluez/hci0/dev_00_AA_01_01_00_01", at: .seconds(11)))
        #expect(!machine.authorizesPairing(of: "/org/bluez/hci0/dev_66_66_66_66_66_66", at: .seconds(11)))
        #expect(!machine.authorizesPairing(of: nil, at: .seconds(11)))
        var manual = Self.registered()
        _ = manual.openPairingWindow(for: .seconds(60), at: .seconds(10))
        #expect(manual.authorizesPairing(of: "/org/bluez/hci0/dev_66_66_66_66_66_66", at: .seconds(11)))
    }

    @Test func pairingWindowTimeline() {
        var machine = Self.registered()
        #expect(!machine.authorizesPairing(at: .seconds(10)))
        let opening = machine.openPairingWindow(for: .seconds(600), at: .seconds(10))
        #expect(opening.answer == .open(closesIn: .seconds(300)), "capped at 300 s")
        #expect(opening.actions == [.setPairable(true, timeoutSeconds: 300), .announceDiscoverable(true)])
        #expect(machine.advertisesDiscoverable && machine.nextDeadline == .seconds(310))
        #expect(machine.authorizesPairing(at: .seconds(309)))
        #expect(machine.facts(at: .seconds(110)).pairingClosesIn == .seconds(200))
        #expect(!machine.authorizesPairing(at: .seconds(310)))
        #expect(machine.timerFired(at: .seconds(200)) == [])
        #expect(
            machine.timerFired(at: .seconds(310)) == [
                .setPairable(false, timeoutSeconds: 0), .announceDiscoverable(false),
            ])
        #expect(!machine.advertisesDiscoverable && machine.nextDeadline == nil)
    }

    /// Requests while a window is open extend it, never shorten it, and never past 300 s after it opened.
    @Test func pairingWindowExtendsOnlyUpToItsLimit() {
        var machine = Self.registered()
        let pairable = { (seconds: UInt32) in Action.setPairable(true, timeoutSeconds: seconds) }
        // (time, seconds asked, answer, actions, when the window closes)
        let timeline: [(Duration, Duration, PeripheralLifecycle.PairingAnswer, [Action], Duration)] = [
            (
                .zero, .seconds(120), .open(closesIn: .seconds(120)), [pairable(120), .announceDiscoverable(true)],
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
            let opening = machine.openPairingWindow(for: asked, at: time)
            #expect(opening.answer == answer, "at \(time)")
            #expect(opening.actions == actions, "at \(time)")
            #expect(machine.nextDeadline == closes, "at \(time)")
        }
        #expect(machine.authorizesPairing(at: .milliseconds(299_999)))
        #expect(!machine.authorizesPairing(at: .seconds(300)))
        #expect(
            machine.timerFired(at: .seconds(300)) == [
                .setPairable(false, timeoutSeconds: 0), .announceDiscoverable(false),
            ])
        #expect(machine.nextDeadline == nil, "no timer for the cool-down: nothing happens when it ends")
    }

    /// After a window closes, the next one waits as long as the last was open, at least 10 s.
    @Test func aClosedWindowCoolsDownAsLongAsItWasOpen() {
        var machine = Self.registered()
        let closing: [Action] = [.setPairable(false, timeoutSeconds: 0), .announceDiscoverable(false)]
        let opening: [Action] = [.setPairable(true, timeoutSeconds: 120), .announceDiscoverable(true)]
        let paired = BlueZSignal.propertiesChanged(
            "/org/bluez/hci0/dev_00_AA_01_00_99_99", interface: BlueZNames.device,
            changed: ["Paired": .boolean(true)], invalidated: [])
        // (time, event, answer to a request at that time or nil for another event, actions)
        typealias Event = (inout PeripheralLifecycle, Duration) -> (PeripheralLifecycle.PairingAnswer?, [Action])
        let asked: (Duration) -> Event = { seconds in
            { machine, now in
                let (answer, actions) = machine.openPairingWindow(for: seconds, at: now)
                return (answer, actions)
            }
        }
        let request = asked(.seconds(120))
        let timer: Event = { machine, now in (nil, machine.timerFired(at: now)) }
        let bond: Event = { machine, now in (nil, machine.received(paired, at: now)) }
        let restart: Event = { machine, now in
            _ = machine.bluezOwnerChanged(":1.7", at: now)
            return (nil, [])
        }
        let timeline: [(Duration, Event, PeripheralLifecycle.PairingAnswer?, [Action])] = [
            // Opened at 0, extended to its 300 s limit, closed by the timer: closed until 600.
            (.zero, request, .open(closesIn: .seconds(120)), opening),
            (
                .seconds(100), asked(.seconds(300)), .open(closesIn: .seconds(200)),
                [.setPairable(true, timeoutSeconds: 200)]
            ),
            (.seconds(300), timer, nil, closing),
            (.seconds(301), request, .coolingDown(retryIn: .seconds(299)), []),
            // bluetoothd restarting is no way around it.
            (.seconds(400), restart, nil, []),
            (.milliseconds(599_500), request, .coolingDown(retryIn: .milliseconds(500)), []),
            (.seconds(600), request, .open(closesIn: .seconds(120)), [.announceDiscoverable(true)]),
        ]
        for (time, event, answer, actions) in timeline {
            let (got, performed) = event(&machine, time)
            #expect(got == answer, "at \(time)")
            #expect(performed == actions, "at \(time)")
        }

        // A bond after 3 s closes the window; the next may open 10 s later, not 3 s later.
        var bonded = Self.registered()
        let bondTimeline: [(Duration, Event, PeripheralLifecycle.PairingAnswer?, [Action])] = [
            (.seconds(1000), request, .open(closesIn: .seconds(120)), opening),
            (.seconds(1003), bond, nil, closing),
            (.seconds(1006), request, .coolingDown(retryIn: .seconds(7)), []),
            (.seconds(1013), request, .open(closesIn: .seconds(120)), opening),
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
        _ = machine.openPairingWindow(for: .seconds(60), at: .zero)
        let late = machine.openPairingWindow(for: .seconds(60), at: .seconds(70))
        #expect(late.answer == .coolingDown(retryIn: .seconds(50)), "closed at 60, as long again: 120")
        #expect(late.actions == [.setPairable(false, timeoutSeconds: 0), .announceDiscoverable(false)])
        #expect(!machine.advertisesDiscoverable && machine.nextDeadline == nil)
        #expect(machine.timerFired(at: .seconds(70)) == [])
    }

    @Test func firstBondClosesThePairingWindow() {
        var machine = Self.registered()
        _ = machine.openPairingWindow(for: .milliseconds(60_500), at: .zero)
        let paired = BlueZSignal.propertiesChanged(
            "/org/bluez/hci0/dev_00_AA_01_00_99_99", interface: BlueZNames.device,
            changed: ["Paired": .boolean(true)], invalidated: [])
        #expect(
            machine.received(paired, at: .seconds(5)) == [
                .setPairable(false, timeoutSeconds: 0), .announceDiscoverable(false),
            ])
        #expect(!machine.authorizesPairing(at: .seconds(6)))
        #expect(machine.received(paired, at: .seconds(7)) == [], "a second bond finds it closed")
    }

    @Test func pairingRequestedBeforeRegistrationIsAppliedByThePolicyStep() {
        var machine = PeripheralLifecycle(settings: .init(adapterPath: Self.adapterPath))
        let opening = machine.openPairingWindow(for: .milliseconds(90_200), at: .zero)
        #expect(opening.actions == [.announceDiscoverable(true)])
        _ = machine.bluezOwnerChanged(":1.0", at: .seconds(10))
        #expect(
            machine.discovered(Self.readyTree, round: 1, at: .seconds(10))
                == [.applyAdapterPolicy(round: 1, pairable: true, pairableTimeoutSeconds: 81)])
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
