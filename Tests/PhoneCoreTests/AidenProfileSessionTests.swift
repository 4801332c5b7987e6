import FoundationEssentials
import PhoneTestSupport
import Testing
import WireFormat

@testable import PhoneCore

/// The pure session following a board that speaks only the Aiden profile (`AidenProfileBoard`): Wakes with epoch
/// bytes 0 and a sequence that restarts at 1 with every board process, no events ring (`404`), no `/status`, and
/// the Aiden snapshot with `tool_status`. Time moves only by the table.
@Suite struct AidenProfileSessionTests {
    /// Answers every request at once from the Aiden board, at the session's clock.
    struct Driver {
        var session = PhoneSession(settings: .init(phoneID: "p1"))
        let board = AidenProfileBoard()
        var now: Duration = .zero
        var effects: [PhoneSession.Effect] = []

        mutating func send(_ input: PhoneSession.Input) {
            var queue = [input]
            while !queue.isEmpty {
                let produced = session.handle(queue.removeFirst(), at: now)
                effects += produced
                for case let .send(request) in produced { queue.append(.answer(request, board.answer(request))) }
            }
        }

        mutating func wake(_ bytes: [UInt8]) { send(.wakeValue(bytes, fullLength: bytes.count)) }

        var card: Card? { session.card }
        /// The `error` events shown (a problem with the board, a malformed Wake).
        var problems: [String] {
            effects.compactMap { effect -> String? in
                guard case let .emit(event) = effect, case let .error(_, message) = event else { return nil }
                return message
            }
        }
    }

    /// Each row: what the board does at `t` (ms), and what the card must show at that same instant, with no
    /// timer fired in between: well inside 2 s. Two board restarts: the sequence counts 1, 2, … again each time.
    @Test func everyChangeAndEveryRestartsFirstChangeIsOnTheCardAtOnce() {
        var driver = Driver()
        driver.send(.started)
        #expect(driver.card?.state == .standby)
        let board = driver.board
        let rows: [(Int, () -> [UInt8]?, String, CardState)] = [
            (100, { board.start("a1", title: "Open Settings") }, "", .running),
            (
                900, { board.update("a1", ["current_step": "Reading", "tool_status": "Taking a screenshot"]) },
                "Reading", .running
            ),
            (1_700, { board.update("a1", ["current_step": "Tapping"]) }, "Tapping", .running),
            // The board process restarts: seq 1 again, below the 3 seen.
            (
                2_000,
                {
                    board.restart(); return nil
                }, "Tapping", .running
            ),
            (2_400, { board.update("a1", ["current_step": "After restart"]) }, "After restart", .running),
            // Restarts again after one Wake: its first Wake, seq 1, equals the last seen and is new too.
            (
                3_500,
                {
                    board.restart(); return nil
                }, "After restart", .running
            ),
            (3_900, { board.update("a1", ["current_step": "Third life"]) }, "Third life", .running),
            (4_700, { board.update("a1", ["current_step": "Third, again"]) }, "Third, again", .running),
            (5_500, { board.end("a1") }, "Third, again", .completed),
        ]
        var wakes = 0
        for (index, (ms, act, step, state)) in rows.enumerated() {
            driver.now = .milliseconds(ms)
            if let bytes = act() {
                wakes += 1
                driver.wake(bytes)
            }
            #expect(driver.card?.state == state, "row \(index)")
            #expect((driver.card?.snapshot?.currentStep ?? "") == step, "row \(index)")
            #expect(driver.session.isFetching == false, "row \(index)")
        }
        // The final state, as the Aiden profile publishes an end.
        let final = driver.card?.snapshot
        #expect(final?.canStop == false && final?.showsProgress == false && final?.progress == 1)
        #expect(driver.problems.isEmpty, "a board without the ring is no broken board: \(driver.problems)")
        #expect(driver.session.counters.fetchesFailed == 0)
        #expect(driver.session.filter.counters.restarts == 1)
        let verdicts = driver.effects.compactMap { effect -> WakeFilter.Verdict? in
            guard case let .emit(event) = effect, case let .wake(notice) = event else { return nil }
            return notice.verdict
        }
        #expect(verdicts.contains(.repeated) && verdicts.contains(.restarted(previous: 3)), "\(verdicts)")
        #expect(driver.session.filter.counters.duplicates == 0)
        #expect(driver.session.counters.fetchesStarted == UInt64(wakes + 1), "one fetch per Wake, one at start")
        // The ring was asked for once, and then remembered as absent; /status once, likewise.
        #expect(board.paths.filter { $0 == "/api/live-activity/events" }.count == 1)
        #expect(board.paths.filter { $0 == "/status" }.count == 1)
        #expect(driver.session.boardHasNoEvents)
        #expect(driver.session.nextDeadline == .milliseconds(5_500) + .seconds(60), "the safety fetch, no retry")
    }

    /// A Wake that arrives while the fetch for the one before is in flight folds into one trailing fetch, and the
    /// trailing fetch reads the final state.
    @Test func wakesDuringAFetchFoldIntoOneTrailingFetchThatEndsOnTheFinalState() {
        var driver = Driver()
        driver.send(.started)
        let board = driver.board
        let first = board.start("a1", title: "Burst")
        driver.effects = []
        let produced = driver.session.handle(.wakeValue(first, fullLength: 12), at: .milliseconds(10))
        guard case let .send(request)? = produced.first(where: { if case .send = $0 { true } else { false } }) else {
            Issue.record("no fetch for the first Wake: \(produced)")
            return
        }
        for step in 1...5 { driver.wake(board.update("a1", ["current_step": "Step \(step)"])) }
        let before = driver.session.counters.fetchesStarted
        driver.send(.answer(request, board.answer(request)))
        #expect(driver.session.counters.fetchesStarted == before + 1, "one trailing fetch for five Wakes")
        #expect(driver.card?.snapshot?.currentStep == "Step 5")
    }

    /// Reasons 0–5, and a byte outside them, each fetch alike: the reason never changes what the phone does.
    @Test func everyReasonFetches() {
        var driver = Driver()
        driver.send(.started)
        let fetches = driver.session.counters.fetchesStarted
        for (index, reason) in ([0, 1, 2, 3, 4, 5, 200] as [UInt8]).enumerated() {
            var bytes = AidenProfileBoard.wake(sequence: UInt64(index + 1))
            bytes[1] = reason
            driver.now = .milliseconds(800 * (index + 1))
            driver.wake(bytes)
        }
        #expect(driver.session.counters.fetchesStarted == fetches + 7)
    }

    @Test func theAidenSnapshotIsReadWithItsToolLineAndUnknownMembersIgnored() throws {
        let body = #"""
            {"status":"ok","live_activity":{"request_id":"a1","status":"running","task_title":"Open Settings",
            "tool_status":"Taking a screenshot","tool_started_at":"2026-06-12T07:00:02Z","locale":"de-CH",
            "aiden_only":{"nested":[1,2]},"started_at":"2026-06-12T07:00:00Z"}}
            """#
        guard case let .snapshot(task, _) = try BoardAnswer.current(from: Array(body.utf8)) else {
            Issue.record("not a snapshot")
            return
        }
        #expect(task.toolStatus == "Taking a screenshot")
        #expect(task.toolStartedAt == "2026-06-12T07:00:02Z")
        #expect(task.locale == "de-CH")
        #expect(task.revision == nil && task.phase == nil, "members of ours that Aiden lacks are absent, not errors")
        let wall = try Date("2026-06-12T07:01:07Z", strategy: .iso8601)
        #expect(ToolLine.text(of: task, at: wall) == "Tool: Taking a screenshot · 1m 05s")
    }

    /// A board of ours whose ring answers again after it was unreachable is asked for its ring again: the
    /// capability is forgotten with the connection.
    @Test func theMissingRingIsForgottenWhenTheBoardWasUnreachable() {
        var driver = Driver()
        driver.send(.started)
        #expect(driver.session.boardHasNoEvents)
        driver.now = .seconds(1)
        let produced = driver.session.handle(
            .wakeValue(driver.board.start("a1", title: "T"), fullLength: 12), at: driver.now)
        for case let .send(request) in produced {
            driver.send(.answer(request, .failed(detail: "connection refused")))
        }
        #expect(driver.session.boardHasNoEvents == false)
    }
}
