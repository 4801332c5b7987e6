import DBusModel
import Testing

@testable import BlueZ

/// The central lifecycle alone: a timeline of events, times, actions and deadlines.
@Suite("CentralLifecycle")
struct CentralLifecycleTests {
    typealias Action = CentralLifecycle.Action
    static let adapter: DBusObjectPath = "/org/bluez/hci0"
    static let device: DBusObjectPath = "/org/bluez/hci0/dev_00_AA_01_00_12_34"
    static let characteristic: DBusObjectPath = "/org/bluez/hci0/dev_00_AA_01_00_12_34/service000a/char000b"
    static let tree: DBusManagedObjects = [
        adapter: FakeBlueZ.adapter(),
        device: WakeCentralTranscriptTests.deviceProperties(),
        characteristic: [BlueZNames.gattCharacteristic: ["UUID": .string(WakeGATT.characteristicUUID)]],
    ]

    static func changed(_ path: DBusObjectPath, _ properties: [String: DBusValue]) -> BlueZSignal {
        .propertiesChanged(path, interface: BlueZNames.device, changed: properties, invalidated: [])
    }

    @Test func timelineFromSearchToSubscribedWithFailures() {
        var machine = CentralLifecycle(settings: .init(adapter: "hci0"))
        let failed = DBusError.bluez(.failed, "le-connection-abort-by-local")
        let address = "00:AA:01:00:12:34"
        let value = WakeCentralTranscriptTests.wake(5)
        let timeline: [(Duration, (inout CentralLifecycle, Duration) -> [Action], [Action], Duration?)] = [
            (.zero, { $0.bluezOwnerChanged(":1.0", at: $1) }, [.discover(round: 1)], nil),
            (
                .zero, { $0.discovered(Self.tree, round: 1, at: $1) }, [.startSearch(round: 1), .report(.searching)],
                nil
            ),
            // The device is in the tree with an RSSI: seen in this search.
            (
                .zero, { $0.searchStarted(round: 1, at: $1) },
                [.stopSearch, .connect(Self.device, link: 1), .report(.connecting(address: address))], nil
            ),
            (
                .seconds(20), { $0.connectFailed(link: 1, error: failed, at: $1) },
                [.problem("connecting to \(address) failed: \(failed)"), .report(.reconnecting(retryIn: .seconds(1)))],
                .seconds(21)
            ),
            (.seconds(21), { $0.timerFired(at: $1) }, [.startSearch(round: 1), .report(.searching)], nil),
            (.seconds(21), { $0.searchStarted(round: 1, at: $1) }, [], .seconds(24)),
            (
                .seconds(22), { $0.received(Self.changed(Self.device, ["RSSI": .int16(-40)]), at: $1) },
                [.stopSearch, .connect(Self.device, link: 2), .report(.connecting(address: address))], nil
            ),
            (
                .seconds(23), { $0.connectFailed(link: 2, error: failed, at: $1) },
                [.problem("connecting to \(address) failed: \(failed)"), .report(.reconnecting(retryIn: .seconds(2)))],
                .seconds(25)
            ),
            (.seconds(25), { $0.timerFired(at: $1) }, [.startSearch(round: 1), .report(.searching)], nil),
            (.seconds(25), { $0.searchStarted(round: 1, at: $1) }, [], .seconds(28)),
            (
                .seconds(26), { $0.received(Self.changed(Self.device, ["RSSI": .int16(-41)]), at: $1) },
                [.stopSearch, .connect(Self.device, link: 3), .report(.connecting(address: address))], nil
            ),
            (.seconds(27), { $0.connectSucceeded(link: 3, at: $1) }, [], .seconds(57)),
            // A late answer from link 2 changes nothing.
            (.seconds(27), { $0.connectFailed(link: 2, error: failed, at: $1) }, [], .seconds(57)),
            (
                .seconds(28), { $0.received(Self.changed(Self.device, ["ServicesResolved": .boolean(true)]), at: $1) },
                [.startNotify(Self.characteristic, link: 3), .report(.subscribing(address: address))], nil
            ),
            (.seconds(28), { $0.notifyStarted(link: 3, at: $1) }, [.readValue(Self.characteristic, link: 3)], nil),
            (
                .seconds(28), { $0.readSucceeded(value, link: 3, at: $1) },
                [.deliver(value), .report(.subscribed(address: address))], nil
            ),
        ]
        for (index, (time, event, actions, deadline)) in timeline.enumerated() {
            #expect(event(&machine, time) == actions, "row \(index) at \(time)")
            #expect(machine.nextDeadline == deadline, "row \(index) deadline")
        }
        #expect(machine.facts.connections == 3 && machine.facts.valuesDelivered == 1)
    }

    @Test func resolveTimeoutDisconnectsAndBacksOff() {
        var machine = CentralLifecycle(settings: .init(adapter: "hci0", resolveTimeout: .seconds(30)))
        _ = machine.bluezOwnerChanged(":1.0", at: .zero)
        _ = machine.discovered(Self.tree, round: 1, at: .zero)
        _ = machine.searchStarted(round: 1, at: .zero)
        _ = machine.connectSucceeded(link: 1, at: .seconds(1))
        #expect(machine.nextDeadline == .seconds(31))
        #expect(machine.timerFired(at: .seconds(30)) == [])
        let actions = machine.timerFired(at: .seconds(31))
        #expect(actions.first == .disconnect(Self.device))
        #expect(actions.last == .report(.reconnecting(retryIn: .seconds(1))))
        #expect(machine.nextDeadline == .seconds(32))
    }

    /// No bond with the board: its Wake characteristic needs an encrypted link, bluetoothd pairs, the board
    /// refuses outside its window and drops the link. The central waits (no reconnect churn on the radio) and
    /// tries again the moment the user has paired.
    @Test func droppedWhileSubscribingWithoutABondWaitsForThePairing() {
        var unpaired = Self.tree
        unpaired[Self.device]?[BlueZNames.device]?["Paired"] = .boolean(false)
        var machine = CentralLifecycle(settings: .init(adapter: "hci0", notBondedRetry: .seconds(60)))
        let address = "00:AA:01:00:12:34"
        let dropped = "\(address) disconnected"
        let timeline: [(Duration, (inout CentralLifecycle, Duration) -> [Action], [Action], Duration?)] = [
            (.zero, { $0.bluezOwnerChanged(":1.0", at: $1) }, [.discover(round: 1)], nil),
            (.zero, { $0.discovered(unpaired, round: 1, at: $1) }, [.startSearch(round: 1), .report(.searching)], nil),
            (
                .zero, { $0.searchStarted(round: 1, at: $1) },
                [.stopSearch, .connect(Self.device, link: 1), .report(.connecting(address: address))], nil
            ),
            (.seconds(1), { $0.connectSucceeded(link: 1, at: $1) }, [], .seconds(31)),
            (
                .seconds(2), { $0.received(Self.changed(Self.device, ["ServicesResolved": .boolean(true)]), at: $1) },
                [.startNotify(Self.characteristic, link: 1), .report(.subscribing(address: address))], nil
            ),
            (
                .seconds(3), { $0.received(Self.changed(Self.device, ["Connected": .boolean(false)]), at: $1) },
                [.problem(dropped), .report(.notBonded(address: address, retryIn: .seconds(60)))], .seconds(63)
            ),
            // Nothing happens before the slow retry...
            (.seconds(10), { $0.timerFired(at: $1) }, [], .seconds(63)),
            // ...unless the user pairs: then at once.
            (
                .seconds(20), { $0.received(Self.changed(Self.device, ["Paired": .boolean(true)]), at: $1) },
                [.startSearch(round: 1), .report(.searching)], nil
            ),
        ]
        for (index, (time, event, actions, deadline)) in timeline.enumerated() {
            #expect(event(&machine, time) == actions, "row \(index) at \(time)")
            #expect(machine.nextDeadline == deadline, "row \(index) deadline")
        }
    }

    /// A search that has not found the board starts discovery over, 3 s in, then 6 s, 12 s … after each start
    /// (the controller reports a device once per scan): each restart waits for its own start, and a new search
    /// begins the schedule again.
    @Test func aSearchThatFindsNothingStartsDiscoveryOver() {
        var empty = Self.tree
        empty[Self.device] = nil
        empty[Self.characteristic] = nil
        var machine = CentralLifecycle(settings: .init(adapter: "hci0"))
        let address = "00:AA:01:00:12:34"
        let failed = DBusError.bluez(.failed, "le-connection-abort-by-local")
        let ms = { (n: Int64) in Duration.milliseconds(n) }
        let timeline: [(Duration, (inout CentralLifecycle, Duration) -> [Action], [Action], Duration?)] = [
            (.zero, { $0.bluezOwnerChanged(":1.0", at: $1) }, [.discover(round: 1)], nil),
            (.zero, { $0.discovered(empty, round: 1, at: $1) }, [.startSearch(round: 1), .report(.searching)], nil),
            (.zero, { $0.searchStarted(round: 1, at: $1) }, [], .seconds(3)),
            (ms(2999), { $0.timerFired(at: $1) }, [], .seconds(3)),
            (.seconds(3), { $0.timerFired(at: $1) }, [.restartSearch(round: 1)], nil),
            // Not started yet: no second restart, whatever the timer says.
            (.seconds(10), { $0.timerFired(at: $1) }, [], nil),
            (ms(3100), { $0.searchStarted(round: 1, at: $1) }, [], ms(9100)),
            (ms(9100), { $0.timerFired(at: $1) }, [.restartSearch(round: 1)], nil),
            (ms(9200), { $0.searchStarted(round: 1, at: $1) }, [], ms(21_200)),
            // The board advertises: found, as in any search.
            (
                .seconds(10), { $0.received(.interfacesAdded(Self.device, Self.tree[Self.device]!), at: $1) },
                [.stopSearch, .connect(Self.device, link: 1), .report(.connecting(address: address))], nil
            ),
            (
                .seconds(11), { $0.connectFailed(link: 1, error: failed, at: $1) },
                [.problem("connecting to \(address) failed: \(failed)"), .report(.reconnecting(retryIn: .seconds(1)))],
                .seconds(12)
            ),
            // The next search starts the schedule over: 3 s again.
            (.seconds(12), { $0.timerFired(at: $1) }, [.startSearch(round: 1), .report(.searching)], nil),
            (.seconds(12), { $0.searchStarted(round: 1, at: $1) }, [], .seconds(15)),
            (.seconds(15), { $0.timerFired(at: $1) }, [.restartSearch(round: 1)], nil),
        ]
        for (index, (time, event, actions, deadline)) in timeline.enumerated() {
            #expect(event(&machine, time) == actions, "row \(index) at \(time)")
            #expect(machine.nextDeadline == deadline, "row \(index) deadline")
        }
        // The wait doubles up to its cap, never beyond.
        #expect(CentralLifecycle.Settings(adapter: "hci0").searchRestart.delay(afterFailures: 10) == .seconds(48))
    }

    /// A central on link 1 to the (bonded) board of `tree`, StartNotify sent at `time`.
    static func subscribing(at time: Duration) -> CentralLifecycle {
        var machine = CentralLifecycle(settings: .init(adapter: "hci0"))
        _ = machine.bluezOwnerChanged(":1.0", at: .zero)
        _ = machine.discovered(tree, round: 1, at: .zero)
        _ = machine.searchStarted(round: 1, at: .zero)
        _ = machine.connectSucceeded(link: 1, at: .seconds(1))
        _ = machine.received(changed(device, ["ServicesResolved": .boolean(true)]), at: time)
        return machine
    }

    /// The same drop with a bond is an ordinary lost link: the doubling backoff.
    @Test func droppedWhileSubscribingWithABondBacksOff() {
        var machine = Self.subscribing(at: .seconds(2))
        let actions = machine.received(Self.changed(Self.device, ["Connected": .boolean(false)]), at: .seconds(3))
        #expect(actions.last == .report(.reconnecting(retryIn: .seconds(1))))
        #expect(machine.nextDeadline == .seconds(4))
    }

    /// The board's daemon restarts: its GATT application goes away while the LE link stays up. The central
    /// must not stay "subscribed" to a characteristic that no longer exists: it drops the link and connects
    /// again, which subscribes to whatever the board registered by then.
    @Test func aWakeCharacteristicThatGoesAwayMakesTheCentralLinkAgain() {
        let address = "00:AA:01:00:12:34"
        var machine = Self.subscribing(at: .seconds(1))
        _ = machine.notifyStarted(link: 1, at: .seconds(1))
        _ = machine.readSucceeded(WakeCentralTranscriptTests.wake(1), link: 1, at: .seconds(1))
        let gone = "\(address) has no Wake characteristic"
        let timeline: [(Duration, BlueZSignal?, [Action], Duration?)] = [
            (
                .seconds(10), .interfacesRemoved(Self.characteristic, [BlueZNames.gattCharacteristic]),
                [
                    .problem("the board's Wake characteristic went away"),
                    .report(.reconnecting(retryIn: .seconds(1))),
                ], .seconds(11)
            ),
            // Still linked, but nothing to subscribe to: drop the link and connect again.
            (
                .seconds(11), nil,
                [
                    .report(.subscribing(address: address)), .disconnect(Self.device), .problem(gone),
                    .report(.reconnecting(retryIn: .seconds(2))),
                ], .seconds(13)
            ),
            (.seconds(12), Self.changed(Self.device, ["Connected": .boolean(false)]), [], .seconds(13)),
            (.seconds(13), nil, [.startSearch(round: 1), .report(.searching)], nil),
        ]
        for (index, (time, signal, actions, deadline)) in timeline.enumerated() {
            let got = signal.map { machine.received($0, at: time) } ?? machine.timerFired(at: time)
            #expect(got == actions, "row \(index) at \(time)")
            #expect(machine.nextDeadline == deadline, "row \(index) deadline")
        }
    }

    /// bluetoothd refuses a `StartNotify` at once while its GATT client takes in the board's Service Changed (a
    /// board daemon that registered its service again): the link is kept and the session asked for again after
    /// a pause, up to `notifyTries` times on one link. Dropping the link at once cut the rediscovery short on
    /// every reconnection: on the real stack the phone never subscribed again.
    @Test func aNotifySessionRefusedWhileBluetoothdIsBusyIsAskedForAgainOnTheSameLink() {
        let address = "00:AA:01:00:12:34"
        let refused = DBusError.bluez(.failed, "Failed to register notify session")
        var machine = Self.subscribing(at: .seconds(2))
        let timeline: [(Duration, (inout CentralLifecycle, Duration) -> [Action], [Action], Duration?)] = [
            (.seconds(2), { $0.notifyFailed(link: 1, error: refused, at: $1) }, [], .milliseconds(2_500)),
            // A signal before the pause changes nothing.
            (
                .milliseconds(2_200), { $0.received(Self.changed(Self.device, ["RSSI": .int16(-40)]), at: $1) }, [],
                .milliseconds(2_500)
            ),
            // The state reported is still "subscribing": nothing new to report.
            (.milliseconds(2_500), { $0.timerFired(at: $1) }, [.startNotify(Self.characteristic, link: 1)], nil),
            (
                .milliseconds(2_600), { $0.notifyStarted(link: 1, at: $1) }, [.readValue(Self.characteristic, link: 1)],
                nil
            ),
            (
                .milliseconds(2_700), { $0.readSucceeded(WakeCentralTranscriptTests.wake(4), link: 1, at: $1) },
                [.deliver(WakeCentralTranscriptTests.wake(4)), .report(.subscribed(address: address))], nil
            ),
        ]
        for (index, (time, event, actions, deadline)) in timeline.enumerated() {
            #expect(event(&machine, time) == actions, "row \(index) at \(time)")
            #expect(machine.nextDeadline == deadline, "row \(index) deadline")
        }
    }

    /// Refused `notifyTries` times on one link: the link is dropped and made again after the backoff, as for any
    /// other failure; another error is never asked for again on the same link.
    @Test func aNotifySessionRefusedEveryTimeDropsTheLinkAfterItsTries() {
        let refused = DBusError.bluez(.failed, "Failed to register notify session")
        var machine = Self.subscribing(at: .seconds(2))
        var time = Duration.seconds(2)
        for attempt in 1..<4 {
            #expect(machine.notifyFailed(link: 1, error: refused, at: time) == [], "refusal \(attempt)")
            time += .milliseconds(500)
            #expect(machine.timerFired(at: time).first == .startNotify(Self.characteristic, link: 1))
        }
        let last = machine.notifyFailed(link: 1, error: refused, at: time)
        #expect(last.first == .disconnect(Self.device))
        #expect(last.last == .report(.reconnecting(retryIn: .seconds(1))))

        var other = Self.subscribing(at: .seconds(2))
        let failed = other.notifyFailed(link: 1, error: .bluez(.failed, "Operation failed"), at: .seconds(2))
        #expect(failed.first == .disconnect(Self.device))
        #expect(refused.isNotifySessionRefused)
        #expect(!DBusError.bluez(.notConnected, "Failed to register notify session").isNotifySessionRefused)
    }

    @Test func bondProblemsAreRecognised() {
        let bond: [DBusError] = [
            .bluez(.authenticationFailed), .bluez(.notPermitted, "Not paired"), .bluez(.notAuthorized),
            .bluez(.failed, "Operation failed with ATT error: 0x0f"),
            .bluez(.failed, "Insufficient Authentication (0x05)"),
        ]
        let other: [DBusError] = [
            .bluez(.failed, "le-connection-abort-by-local"), .timeout("no answer"), .bluez(.inProgress),
            .bluez(.failed, "Operation failed with ATT error: 0x0e"),
        ]
        let recognised = bond.map(\.isBondProblem)
        let ignored = other.map(\.isBondProblem)
        #expect(recognised == [true, true, true, true, true])
        #expect(ignored == [false, false, false, false])
    }
}
