import PhoneTestSupport
import Testing
import WireFormat

@testable import PhoneCore

/// What the session's alerts say about their task, where it takes the words from (the card's
/// snapshot, or a read of that task), and that reading never reorders, loses or repeats an alert.
@Suite struct PhoneSessionAlertTextTests {
    /// A started session past its first events read, so every transition from now on alerts.
    private func started() -> SessionDriver {
        var driver = SessionDriver()
        driver.send(.started)
        driver.clearEffects()
        return driver
    }

    /// `transition request_id: title | step | action | error`, `-` for what the alert does not say.
    private func told(_ alerts: [Alert]) -> [String] {
        alerts.map { alert in
            "\(alert.transition.rawValue) \(alert.requestID ?? "-"): "
                + [alert.title, alert.step, alert.action, alert.error].map { $0 ?? "-" }.joined(separator: " | ")
        }
    }

    /// The reads after `count` requests, by name.
    private func reads(_ board: FakeBoard, after count: Int) -> [String] {
        board.requests[count...].map { request in
            switch request {
            case .status: "status"
            case .current: "current"
            case .events: "events"
            case let .task(id): "task \(id)"
            case .appState: "app-state"
            case .bluetoothStatus: "bluetooth-status"
            case .openPairingWindow: "pairing-window"
            case .answer: "answer"
            }
        }
    }

    /// The task on the card is where its transition left it: its own snapshot says everything, and
    /// nothing more is read.
    @Test func alertsAboutTheTaskOnTheCardTakeTheCardsWords() {
        let table: [(String, (FakeBoard) -> Void, String)] = [
            (
                "handoff", { $0.handoff(step: "Enter the Wi-Fi password") },
                "handoff chat_1: Open Settings | Enter the Wi-Fi password | request_user_input | -"
            ),
            (
                "foreground recovery",
                { $0.update(["status": "needs_app", "current_step": "Waiting"], transition: "foreground_recovery") },
                "foreground_recovery chat_1: Open Settings | - | - | -"
            ),
            ("completion", { $0.end("completed") }, "completed chat_1: Open Settings | - | - | -"),
            (
                "failure", { $0.end("failed", error: "the Wi-Fi password was refused") },
                "failed chat_1: Open Settings | - | - | the Wi-Fi password was refused"
            ),
            ("failure without an error", { $0.end("failed") }, "failed chat_1: Open Settings | - | - | -"),
        ]
        for (name, change, expected) in table {
            var driver = started()
            driver.board.start("chat_1")
            driver.wake(seq: 1)
            let before = driver.board.requests.count
            change(driver.board)
            driver.wake(seq: 2)
            #expect(told(driver.alerts) == [expected], "\(name)")
            #expect(reads(driver.board, after: before) == ["current", "events"], "\(name): no task read")
            #expect(driver.everyAlertWasSavedFirst, "\(name)")
        }
    }

    /// Transcript: an alert about a task that is not on the card waits for that task's snapshot.
    @Test func anAlertAboutAnotherTaskReadsThatTaskFirst() {
        var driver = started()
        driver.board.start("chat_1", title: "Copy the photos")
        driver.board.start("chat_2", title: "Open Settings")
        driver.wake(seq: 1)
        let before = driver.board.requests.count
        driver.board.end("failed", error: "disk full", of: "chat_1")
        driver.wake(seq: 2)
        #expect(reads(driver.board, after: before) == ["current", "events", "task chat_1"])
        #expect(told(driver.alerts) == ["failed chat_1: Copy the photos | - | - | disk full"])
        #expect(driver.lastCard?.snapshot?.requestID == "chat_2", "the card stays on the current task")
        #expect(driver.everyAlertWasSavedFirst)
        #expect(!driver.session.isFetching)
    }

    /// The handoff came between the `current` read and the `events` read: the card's snapshot is
    /// older than the transition, so the task is read again and the alert has the step.
    @Test func aTaskThatMovedBetweenTheCurrentAndTheEventsReadIsReadAgain() {
        var driver = started()
        driver.board.start("chat_1")
        driver.wake(seq: 1)
        driver.holdRequests = true
        driver.wake(seq: 2)
        #expect(driver.held == [.current(phoneID: "p1", ifNoneMatch: driver.board.etag)])
        driver.releaseOne()
        driver.board.handoff(step: "Enter the Wi-Fi password")
        driver.releaseOne()
        #expect(driver.held == [.task(requestID: "chat_1")])
        #expect(driver.alerts.isEmpty, "the alert waits for its words")
        #expect(driver.session.isFetching, "the read is part of the fetch")
        driver.release()
        #expect(
            told(driver.alerts) == ["handoff chat_1: Open Settings | Enter the Wi-Fi password | request_user_input | -"]
        )
        #expect(driver.everyAlertWasSavedFirst)
    }

    /// A handoff that began and ended between two fetches: the read shows the task acting again, so
    /// the alert names the task and asks for no step that is no longer wanted.
    @Test func aHandoffAlreadyOverNamesTheTaskAndNoStep() {
        var driver = started()
        driver.board.start("chat_1")
        driver.wake(seq: 1)
        let before = driver.board.requests.count
        driver.board.handoff(step: "Confirm the network")
        driver.board.update(["phase": "acting", "current_action": "tap", "current_step": "Joining"])
        driver.wake(seq: 2)
        #expect(reads(driver.board, after: before) == ["current", "events", "task chat_1"])
        #expect(told(driver.alerts) == ["handoff chat_1: Open Settings | - | - | -"])
    }

    /// An ended task no longer changes: when the card shows it ended, an earlier transition of it is
    /// told from that snapshot without a read.
    @Test func anEndedTaskOnTheCardIsNotReadAgain() {
        var driver = started()
        driver.board.start("chat_1")
        driver.wake(seq: 1)
        let before = driver.board.requests.count
        driver.board.handoff(step: "Confirm the network")
        driver.board.end("completed")
        driver.wake(seq: 2)
        #expect(reads(driver.board, after: before) == ["current", "events"])
        #expect(
            told(driver.alerts) == [
                "handoff chat_1: Open Settings | - | - | -", "completed chat_1: Open Settings | - | - | -",
            ])
    }

    /// One read serves every alert of the same task in a fetch.
    @Test func eachTaskIsReadOnceAFetch() {
        var driver = started()
        driver.board.start("chat_1", title: "Copy the photos")
        driver.board.start("chat_2")
        driver.wake(seq: 1)
        let before = driver.board.requests.count
        driver.board.handoff(step: "Pick an album", of: "chat_1")
        driver.board.end("failed", error: "no album", of: "chat_1")
        driver.wake(seq: 2)
        #expect(reads(driver.board, after: before) == ["current", "events", "task chat_1"])
        #expect(
            told(driver.alerts) == [
                "handoff chat_1: Copy the photos | - | - | -", "failed chat_1: Copy the photos | - | - | no album",
            ])
    }

    /// Timeline: alerts come in the ring's order. The failure of the task off the card waits for its
    /// read, and the completion after it (whose words the card has) waits behind it.
    @Test func alertsKeepTheRingsOrderWhileOneWaitsForItsRead() {
        var driver = started()
        driver.board.start("chat_1", title: "Copy the photos")
        driver.board.start("chat_2")
        driver.wake(seq: 1)
        driver.board.end("failed", error: "disk full", of: "chat_1")
        driver.board.end("completed")
        driver.holdRequests = true
        driver.wake(seq: 2)
        driver.releaseOne()  // current: chat_2 completed
        driver.releaseOne()  // events: failed chat_1, completed chat_2
        #expect(driver.held == [.task(requestID: "chat_1")])
        #expect(driver.alerts.isEmpty)
        driver.release()
        #expect(
            told(driver.alerts) == [
                "failed chat_1: Copy the photos | - | - | disk full", "completed chat_2: Open Settings | - | - | -",
            ])
        #expect(driver.everyAlertWasSavedFirst)
    }

    /// A `connected` alert is not held behind a task alert waiting for its read.
    @Test func theConnectedAlertDoesNotWait() {
        var driver = SessionDriver(usbWatched: true)
        driver.send(.started)
        driver.board.start("chat_1", title: "Copy the photos")
        driver.board.start("chat_2")
        driver.wake(seq: 1)
        driver.board.end("failed", of: "chat_1")
        driver.holdRequests = true
        driver.wake(seq: 2)
        driver.releaseOne()
        driver.releaseOne()
        #expect(driver.held == [.task(requestID: "chat_1")])
        driver.clearEffects()
        driver.send(.usb(.arrived(USBDeviceLocation(bus: 1, address: 9))))
        #expect(driver.alertNames == ["connected usb-1-9"])
        driver.release()
        #expect(driver.alertNames == ["connected usb-1-9", "failed chat_1"])
        #expect(driver.everyAlertWasSavedFirst)
    }

    /// Whatever becomes of the read, the alert is given, with what the card knows.
    @Test func aReadThatGivesNothingStillAlerts() {
        let table: [(name: String, mode: FakeBoard.Mode, pruned: Bool, problem: String?)] = [
            ("a 503", .status(503), false, nil),
            ("a 403", .status(403), false, nil),
            ("a malformed answer", .malformed, false, nil),
            ("a task the board no longer has (404)", .normal, true, nil),
            ("no answer", .unreachable("timed out"), false, "unreachable"),
        ]
        for row in table {
            var driver = started()
            driver.board.start("chat_1", title: "Copy the photos")
            driver.board.start("chat_2")
            driver.wake(seq: 1)
            if row.pruned {
                // In the ring, but gone from the store already.
                driver.board.record("chat_9", "completed")
            } else {
                driver.board.end("failed", error: "disk full", of: "chat_1")
            }
            driver.board.taskMode = row.mode
            driver.clearEffects()
            driver.wake(seq: 2)
            let expected = row.pruned ? "completed chat_9: - | - | - | -" : "failed chat_1: - | - | - | -"
            #expect(told(driver.alerts) == [expected], "\(row.name)")
            #expect(driver.everyAlertWasSavedFirst, "\(row.name)")
            #expect(driver.session.counters.fetchesFailed == (row.problem == nil ? 0 : 1), "\(row.name)")
            #expect(driver.lastCard?.problem?.kind == row.problem, "\(row.name)")
            #expect(driver.lastCard?.snapshot?.requestID == "chat_2", "\(row.name): the card keeps its task")
            #expect(!driver.session.isFetching, "\(row.name)")

            // Nothing repeats on the next fetch, which reads no task again.
            driver.board.taskMode = nil
            driver.clearEffects()
            let before = driver.board.requests.count
            driver.wake(seq: 3)
            if row.problem != nil { driver.fireDeadline() }
            #expect(driver.alerts.isEmpty, "\(row.name)")
            #expect(reads(driver.board, after: before).contains("current"), "\(row.name): fetched again")
            #expect(!reads(driver.board, after: before).contains { $0.hasPrefix("task") }, "\(row.name)")
        }
    }

    /// A crash while an alert waits for its read: the record saved by then holds the keys of the
    /// alerts already given and the cursor from before, so the restarted client gives the waiting
    /// alert once and repeats none.
    @Test func aRestartWhileAnAlertWaitsGivesItOnceAndRepeatsNothing() throws {
        var driver = started()
        driver.board.start("chat_1", title: "Copy the photos")
        driver.board.start("chat_2")
        driver.wake(seq: 1)
        driver.board.end("completed")
        driver.board.end("failed", error: "disk full", of: "chat_1")
        driver.holdRequests = true
        driver.wake(seq: 2)
        driver.releaseOne()
        driver.releaseOne()
        #expect(driver.held == [.task(requestID: "chat_1")])
        #expect(driver.alertNames == ["completed chat_2"], "the completion needed no read")
        #expect(driver.everyAlertWasSavedFirst)
        let saved = try #require(driver.savedRecords.last)
        #expect(!saved.contains(.task(epoch: 1234, requestID: "chat_1", transition: .failed)))
        #expect(saved.cursor.since < driver.session.policy.cursor.since, "the cursor from before the read")

        var restarted = SessionDriver(record: saved, board: driver.board)
        restarted.send(.started)
        #expect(told(restarted.alerts) == ["failed chat_1: Copy the photos | - | - | disk full"])
        #expect(restarted.everyAlertWasSavedFirst)
        let final = try #require(restarted.savedRecords.last)
        #expect(final.cursor == restarted.session.policy.cursor, "once nothing waits, the whole record is saved")
        var again = SessionDriver(record: final, board: driver.board)
        again.send(.started)
        #expect(again.alerts.isEmpty)
    }

    /// A board whose ring names many tasks is read a bounded number of times per fetch; the alerts
    /// past the bound are given all the same.
    @Test func taskReadsPerFetchAreBounded() {
        var driver = started()
        driver.board.start("chat_current")
        driver.wake(seq: 1)
        for index in 1...40 { driver.board.record("chat_\(index)", "failed") }
        driver.clearEffects()
        let before = driver.board.requests.count
        driver.wake(seq: 2)
        #expect(reads(driver.board, after: before).filter { $0.hasPrefix("task") }.count == 16)
        #expect(driver.alertNames == (1...40).map { "failed chat_\($0)" })
        #expect(driver.everyAlertWasSavedFirst)
    }

    /// A new epoch while an alert waits: the record saved meanwhile forgets the old cursor too.
    @Test func aNewEpochWhileAnAlertWaitsResetsTheSavedCursor() throws {
        var driver = started()
        driver.board.start("chat_1")
        driver.board.start("chat_2")
        driver.wake(seq: 1)
        driver.board.end("failed", of: "chat_1")
        driver.holdRequests = true
        driver.wake(seq: 2)
        driver.releaseOne()
        driver.releaseOne()
        driver.wake(seq: 1, epoch: 999)
        let saved = try #require(driver.savedRecords.last)
        #expect(saved.cursor == EventCursor())
        #expect(!saved.contains(.task(epoch: 1234, requestID: "chat_1", transition: .failed)))
    }
}
