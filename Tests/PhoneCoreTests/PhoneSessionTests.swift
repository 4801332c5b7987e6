import PhoneTestSupport
import Testing
import WakeProtocol
import WireFormat

@testable import PhoneCore

/// The pure session on a hand-moved clock against a fake board: what it asks, shows and alerts.
@Suite struct PhoneSessionTests {
    @Test func startReportsForegroundNamesTheConnectionAndFetches() {
        var driver = SessionDriver()
        driver.send(.started)
        #expect(
            driver.board.requests == [
                .appState(.foreground, returnEntry: nil, phoneID: "p1"), .status,
                .current(phoneID: "p1", ifNoneMatch: nil),
                .events(EventCursor()),
            ])
        #expect(driver.alertNames == ["connected board-a1b2c3"])
        #expect(driver.cards.map(\.state) == [.disconnected, .standby])
        #expect(driver.lastCard?.link == LinkState(usb: .unmonitored, wake: .connecting, connectionID: "board-a1b2c3"))
        #expect(driver.session.nextDeadline == .seconds(60), "the safety refetch is armed")
        #expect(driver.savedRecords.last?.contains(.connection("board-a1b2c3")) == true)
    }

    @Test func aWakeFetchesAndTheCardShowsTheTask() throws {
        var driver = SessionDriver()
        driver.send(.started)
        driver.board.start("chat_1")
        driver.clearEffects()
        driver.advance(to: .seconds(1))
        driver.wake(seq: 7)
        let notice = try #require(driver.events.first)
        #expect(
            notice
                == .wake(
                    WakeNotice(
                        version: 1, reason: "live_activity", epoch: 1234, sequence: 7,
                        verdict: .newEpoch(previous: nil))))
        #expect(driver.cards.map(\.state) == [.running])
        #expect(driver.lastCard?.snapshot?.taskTitle == "Open Settings")
        #expect(driver.board.statusRequests == 1, "the connection is named once while the board stays reachable")
        #expect(driver.alerts.isEmpty, "started does not alert")
        #expect(driver.session.nextDeadline == .seconds(61))
    }

    @Test func duplicateWakesAreDroppedWithoutAFetch() {
        var driver = SessionDriver()
        driver.send(.started)
        driver.wake(seq: 5)
        let fetches = driver.session.counters.fetchesStarted
        driver.clearEffects()
        driver.wake(seq: 5)
        driver.wake(seq: 5)
        #expect(driver.session.counters.fetchesStarted == fetches)
        #expect(driver.events.count == 2)
        #expect(
            driver.events.allSatisfy {
                if case let .wake(notice) = $0 { notice.verdict == .duplicate } else { false }
            })
    }

    @Test func aWakeStormDuringAFetchCausesExactlyOneTrailingFetch() {
        var driver = SessionDriver()
        driver.send(.started)
        let before = driver.session.counters.fetchesStarted
        driver.holdRequests = true
        driver.wake(seq: 1)
        #expect(driver.held == [.current(phoneID: "p1", ifNoneMatch: driver.board.etag)])
        for seq in UInt64(2)...10_001 { driver.wake(seq: seq) }
        #expect(driver.held.count == 1, "no second request while one is in flight")
        driver.release()
        #expect(driver.session.counters.fetchesStarted == before + 2, "the storm's fetch plus one trailing fetch")
        #expect(!driver.session.isFetching)
        #expect(driver.session.filter.counters.accepted == 10_001)
    }

    @Test func notModifiedReusesTheLastAnswer() throws {
        var driver = SessionDriver()
        driver.send(.started)
        driver.board.start("chat_1")
        driver.wake(seq: 1)
        driver.clearEffects()
        let requestsBefore = driver.board.requests.count
        driver.wake(seq: 2)
        let asked = Array(driver.board.requests[requestsBefore...])
        #expect(asked.first == .current(phoneID: "p1", ifNoneMatch: driver.board.etag))
        #expect(asked.count == 2, "the events are read after a 304 too")
        #expect(driver.cards.isEmpty, "nothing changed, nothing is redrawn")
        #expect(driver.lastCard?.state == .running)
        #expect(driver.lastCard?.problem == nil)
        #expect(driver.errors.isEmpty)
    }

    @Test func unreachableForbiddenAndMalformedAreDistinctProblems() {
        var driver = SessionDriver()
        driver.board.mode = .unreachable("connect to 127.0.0.1:8080: refused")
        driver.send(.started)
        #expect(driver.errorKinds == ["unreachable"])
        #expect(driver.lastCard?.state == .disconnected)
        #expect(driver.lastCard?.problem == .unreachable(detail: "connect to 127.0.0.1:8080: refused"))
        #expect(driver.session.nextDeadline == .milliseconds(250), "retried after the first backoff")

        driver.fireDeadline()
        #expect(driver.errorKinds == ["unreachable"], "the same problem again is not reported again")
        #expect(driver.session.nextDeadline == .milliseconds(750), "the backoff doubles")

        driver.board.mode = .status(403)
        driver.fireDeadline()
        #expect(driver.errorKinds == ["unreachable", "forbidden"])
        #expect(driver.lastCard?.problem?.kind == "forbidden")

        driver.board.mode = .malformed
        driver.fireDeadline()
        #expect(driver.errorKinds == ["unreachable", "forbidden", "malformed"])
        #expect(driver.lastCard?.problem?.kind == "malformed")

        driver.board.mode = .status(503)
        driver.fireDeadline()
        #expect(driver.errorKinds.last == "http_status")

        driver.board.mode = .normal
        driver.fireDeadline()
        #expect(driver.lastCard?.state == .standby)
        #expect(driver.lastCard?.problem == nil)
        #expect(driver.alertNames == ["connected board-a1b2c3"], "named once the board answers /status")
        #expect(driver.session.nextDeadline == driver.now + .seconds(60))
    }

    /// An event whose request id breaks the board's own rule refuses the whole events answer, like any
    /// malformed entry: the card still follows `current` and names the entry at fault, nothing is alerted,
    /// no read is sent for the id, and the cursor stays before the bad entry, so the good events after it
    /// alert once the ring no longer holds it.
    @Test func aHostileRequestIDInTheEventsIsRefusedAndTheCursorHolds() throws {
        var driver = SessionDriver()
        driver.send(.started)
        driver.board.start("chat_1")
        driver.wake(seq: 1)
        let cursor = driver.session.policy.cursor
        driver.board.record("chat_1\u{1B}[2J\n<3>forged", "failed")
        driver.board.handoff()
        driver.clearEffects()
        driver.wake(seq: 2)
        #expect(driver.alerts.isEmpty)
        #expect(driver.lastCard?.state == .handoff, "the card follows the current answer")
        let problem = try #require(driver.lastCard?.problem)
        #expect(problem.kind == "malformed")
        #expect(
            problem.description
                == "malformed answer from the board: events[0].request_id: "
                + "must be 1 to 128 characters from A-Z a-z 0-9 . _ : -")
        #expect(driver.board.taskReads.isEmpty)
        #expect(driver.session.policy.cursor == cursor, "nothing after the bad entry is skipped")
        #expect(driver.session.nextDeadline != nil, "the fetch is tried again")

        driver.board.ring.removeAll { $0.requestID != "chat_1" }
        driver.fireDeadline()
        #expect(driver.alertNames == ["handoff chat_1"])
        #expect(driver.lastCard?.problem == nil)
    }

    @Test func aProblemKeepsTheLastGoodCardWithAProblemLine() {
        var driver = SessionDriver()
        driver.send(.started)
        driver.board.start("chat_1")
        driver.wake(seq: 1)
        driver.board.mode = .unreachable("timed out")
        driver.wake(seq: 2)
        #expect(driver.lastCard?.state == .running)
        #expect(driver.lastCard?.snapshot?.requestID == "chat_1")
        #expect(driver.lastCard?.problem == .unreachable(detail: "timed out"))
    }

    @Test func eachHighValueTransitionAlertsOnceAndARestartRepeatsNothing() throws {
        var driver = SessionDriver()
        driver.send(.started)
        driver.board.start("chat_1")
        driver.wake(seq: 1)
        driver.board.handoff()
        driver.wake(seq: 2)
        #expect(driver.lastCard?.state == .handoff)
        driver.board.update(["phase": "acting", "current_action": "tap"])
        driver.wake(seq: 3)
        driver.board.update(["status": "needs_app"], transition: "foreground_recovery")
        driver.wake(seq: 4)
        #expect(driver.lastCard?.state == .needsApp)
        driver.board.update(["status": "running"])
        driver.wake(seq: 5)
        driver.board.end("completed")
        driver.wake(seq: 6)
        driver.wake(seq: 7)
        driver.fireDeadline()
        #expect(
            driver.alertNames == [
                "connected board-a1b2c3", "handoff chat_1", "foreground_recovery chat_1", "completed chat_1",
            ])
        #expect(driver.lastCard?.state == .completed)

        // The client restarts with the record it saved: the same board instance, the same ring.
        let saved = try #require(driver.savedRecords.last)
        var restarted = SessionDriver(record: saved, board: driver.board)
        restarted.send(.started)
        restarted.wake(seq: 7)
        #expect(restarted.alerts.isEmpty)
        #expect(restarted.lastCard?.state == .completed)
        #expect(restarted.board.requests.contains(.events(saved.cursor)), "it reads on from the saved cursor")
    }

    @Test func aHandoffResolvedBetweenTwoFetchesStillAlertsOnce() {
        var driver = SessionDriver()
        driver.send(.started)
        driver.board.start("chat_1")
        driver.wake(seq: 1)
        driver.board.handoff()
        driver.board.update(["phase": "acting", "current_action": "tap"])
        driver.wake(seq: 2)
        #expect(!driver.cards.contains { $0.state == .handoff }, "the handoff never was in an answer")
        #expect(driver.alertNames.filter { $0.hasPrefix("handoff") } == ["handoff chat_1"])
    }

    @Test func aFailedTaskAlertsAndACanceledOneDoesNot() {
        var driver = SessionDriver()
        driver.send(.started)
        driver.board.start("chat_1")
        driver.board.end("failed")
        driver.wake(seq: 1)
        driver.board.start("chat_2")
        driver.board.end("canceled")
        driver.wake(seq: 2)
        #expect(driver.alertNames == ["connected board-a1b2c3", "failed chat_1"])
        #expect(driver.lastCard?.state == .canceled)
    }

    @Test func aNewEpochResetsTheFilterAndTheCursorAndStillFetches() {
        var driver = SessionDriver()
        driver.send(.started)
        driver.board.start("chat_1")
        driver.board.end("completed")
        driver.wake(seq: 100)
        #expect(driver.alertNames.last == "completed chat_1")

        driver.board.wipe(epoch: 999)
        let before = driver.board.requests.count
        driver.wake(seq: 1, epoch: 999)
        #expect(driver.session.filter.lastEpoch == 999)
        #expect(driver.session.filter.lastSequence == 1, "a smaller sequence in a new epoch is new")
        #expect(driver.board.requests[before...].contains(.events(EventCursor())), "the events are read from 0")
        #expect(driver.lastCard?.state == .standby)

        driver.board.start("chat_1")
        driver.board.end("completed")
        driver.wake(seq: 2, epoch: 999)
        #expect(
            driver.alertNames == ["connected board-a1b2c3", "completed chat_1", "completed chat_1"],
            "the same request id in a new epoch is a new alert")
    }

    @Test func malformedWakeValuesAreCountedAndDropped() {
        var driver = SessionDriver()
        driver.send(.started)
        let fetches = driver.session.counters.fetchesStarted
        driver.clearEffects()
        driver.send(.wakeValue([1, 4, 0, 0, 0], fullLength: 5))
        driver.send(.wakeValue(Array(repeating: 0, count: 64), fullLength: 300))
        driver.send(.wakeValue([], fullLength: 0))
        #expect(driver.errorKinds == ["malformed_wake", "malformed_wake", "malformed_wake"])
        #expect(driver.errors.first?.message.contains("5-byte") == true)
        #expect(driver.session.counters.malformedWakes == 3)
        #expect(driver.session.counters.fetchesStarted == fetches)
        #expect(driver.session.filter.counters.received == 0)
    }

    @Test func theBoardConnectionIsRenamedOnlyWhenItsInstanceChanges() {
        var driver = SessionDriver()
        driver.send(.started)
        driver.board.mode = .unreachable("refused")
        driver.fireDeadline()
        #expect(driver.session.link.connectionID == nil, "an unreachable board ends the session")
        driver.board.mode = .normal
        driver.fireDeadline()
        #expect(driver.session.link.connectionID == "board-a1b2c3")
        #expect(driver.alertNames == ["connected board-a1b2c3"], "the same instance is the same session")

        driver.board.mode = .unreachable("refused")
        driver.fireDeadline()
        driver.board.instanceID = "ff00"
        driver.board.mode = .normal
        driver.fireDeadline()
        #expect(driver.alertNames == ["connected board-a1b2c3", "connected board-ff00"])
        #expect(driver.board.statusRequests == 3)
    }

    @Test func usbSessionsNameTheConnectionAndALinkUpFetches() throws {
        var driver = SessionDriver(usbWatched: true)
        driver.send(.usb(.arrived(USBDeviceLocation(bus: 1, address: 7))))
        #expect(driver.events.isEmpty, "nothing is shown before the start")
        driver.send(.started)
        #expect(driver.alertNames == ["connected usb-1-7"])
        #expect(driver.board.statusRequests == 0, "USB names the session")
        #expect(driver.lastCard?.link == LinkState(usb: .up, wake: .connecting, connectionID: "usb-1-7"))

        driver.send(.usb(.departed(USBDeviceLocation(bus: 1, address: 7))))
        #expect(driver.lastCard?.state == .disconnected)
        #expect(driver.lastCard?.link.usb == .down)

        let fetches = driver.session.counters.fetchesStarted
        driver.send(.usb(.arrived(USBDeviceLocation(bus: 1, address: 8))))
        driver.send(.usb(.arrived(USBDeviceLocation(bus: 1, address: 8))))
        #expect(driver.alertNames == ["connected usb-1-7", "connected usb-1-8"])
        #expect(driver.session.counters.fetchesStarted == fetches + 1)
        #expect(driver.lastCard?.state == .standby)

        // A restart while still plugged in sees the same bus and address: no second alert.
        let saved = try #require(driver.savedRecords.last)
        var restarted = SessionDriver(usbWatched: true, record: saved, board: driver.board)
        restarted.send(.usb(.arrived(USBDeviceLocation(bus: 1, address: 8))))
        restarted.send(.started)
        #expect(restarted.alerts.isEmpty)
    }

    @Test func usbEventsAreIgnoredWhenUSBIsNotMonitored() {
        var driver = SessionDriver()
        driver.send(.started)
        driver.send(.usb(.arrived(USBDeviceLocation(bus: 1, address: 7))))
        #expect(driver.session.link.usb == .unmonitored)
        #expect(driver.alertNames == ["connected board-a1b2c3"])
    }

    @Test func aWatcherThatCannotWatchLeavesTheBoardToNameTheConnection() {
        var driver = SessionDriver()
        driver.send(.usbWatched(true))
        #expect(driver.session.link.usb == .down)
        driver.send(.usb(.arrived(USBDeviceLocation(bus: 1, address: 7))))
        driver.send(.usbWatched(false))
        #expect(driver.events.isEmpty && driver.alerts.isEmpty, "nothing is shown before the start")
        driver.send(.started)
        #expect(driver.session.link.usb == .unmonitored)
        #expect(driver.alertNames == ["connected board-a1b2c3"], "the plugged-in board is forgotten")
        #expect(driver.board.statusRequests == 1)
    }

    @Test func watchingStopsWhileTheLinkIsUp() {
        var driver = SessionDriver(usbWatched: true)
        driver.send(.usb(.arrived(USBDeviceLocation(bus: 1, address: 7))))
        driver.send(.started)
        #expect(driver.lastCard?.link == LinkState(usb: .up, wake: .connecting, connectionID: "usb-1-7"))
        let before = driver.effects.count
        driver.send(.usbWatched(true))
        #expect(driver.effects.count == before, "watched already: nothing changes")

        driver.send(.usbWatched(false))
        #expect(driver.lastCard?.link == LinkState(usb: .unmonitored, wake: .connecting))
        driver.send(.usb(.departed(USBDeviceLocation(bus: 1, address: 7))))
        driver.send(.usb(.arrived(USBDeviceLocation(bus: 1, address: 8))))
        #expect(driver.session.link.usb == .unmonitored, "hotplug events are not followed any more")
        #expect(driver.alertNames == ["connected usb-1-7"])
    }

    @Test func appStateIsReportedAndRetriedAfterTheBoardAnswersAgain() {
        var driver = SessionDriver()
        driver.board.mode = .unreachable("refused")
        driver.send(.started)
        #expect(driver.board.appStates == [.foreground])
        driver.board.mode = .normal
        driver.fireDeadline()
        #expect(driver.board.appStates == [.foreground, .foreground], "sent again once the board answers")
        driver.fireDeadline()
        #expect(driver.board.appStates == [.foreground, .foreground], "not again once accepted")
        driver.send(.appState(.background))
        driver.send(.appState(.foreground))
        #expect(driver.board.appStates == [.foreground, .foreground, .background, .foreground])
    }

    /// Transcript of the app-state reports: the return entry goes with each, and a new entry
    /// offered later is reported when it changes what is reported.
    @Test func theReturnEntryGoesWithEveryAppStateReport() {
        func reports(_ board: FakeBoard) -> [String] {
            board.requests.compactMap {
                guard case let .appState(state, entry, _, _) = $0 else { return nil }
                return "\(state.rawValue) \(entry?.rawValue ?? "none")"
            }
        }
        // --json with no notification server yet: nothing to offer; the notifier joins later.
        var json = SessionDriver()
        json.send(.returnEntryOffered(.notification))
        #expect(json.board.requests.isEmpty, "nothing is sent before the start")
        json = SessionDriver()
        json.send(.started)
        json.send(.returnEntryOffered(.notification))
        json.send(.returnEntryOffered(.notification))
        json.send(.appState(.background))
        #expect(reports(json.board) == ["foreground none", "foreground notification", "background notification"])
        #expect(json.session.returnEntry == .notification)

        // A card on a terminal from the start: a notifier joining changes nothing reported.
        var terminal = SessionDriver(returnEntries: [.card])
        terminal.send(.started)
        terminal.send(.returnEntryOffered(.notification))
        #expect(reports(terminal.board) == ["foreground card"])

        // Offered while a report is in flight: sent once that one is answered.
        var busy = SessionDriver()
        busy.holdRequests = true
        busy.send(.started)
        busy.send(.returnEntryOffered(.notification))
        #expect(reports(busy.board).isEmpty)
        #expect(busy.held.first == .appState(.foreground, returnEntry: nil, phoneID: "p1"))
        busy.release()
        #expect(reports(busy.board) == ["foreground none", "foreground notification"])
    }

    @Test func aReconnectedWakeSourceFetchesButOnlyAfterTheStart() {
        var driver = SessionDriver()
        driver.send(.wakeLink(.connected))
        #expect(driver.board.requests.isEmpty)
        driver.send(.started)
        let fetches = driver.session.counters.fetchesStarted
        #expect(fetches == 1)
        driver.send(.wakeLink(.disconnected))
        #expect(driver.lastCard?.link.wake == .disconnected)
        driver.send(.wakeLink(.connected))
        #expect(driver.session.counters.fetchesStarted == fetches + 1)
    }

    @Test func theSafetyRefetchRunsAfterAMinuteOfQuiet() {
        var driver = SessionDriver()
        driver.send(.started)
        let before = driver.board.currentRequests
        driver.advance(to: .seconds(30))
        driver.send(.deadlineReached)
        #expect(driver.board.currentRequests == before, "an early timer only re-arms")
        driver.fireDeadline()
        #expect(driver.now == .seconds(60))
        #expect(driver.board.currentRequests == before + 1)
        #expect(driver.session.nextDeadline == .seconds(120))
    }

    @Test func lateAnswersAreIgnored() {
        var driver = SessionDriver()
        driver.send(.started)
        driver.clearEffects()
        driver.send(.answer(.events(EventCursor()), .failed(detail: "late")))
        #expect(driver.events.isEmpty)
        #expect(driver.session.counters.fetchesFailed == 0)
    }
}
