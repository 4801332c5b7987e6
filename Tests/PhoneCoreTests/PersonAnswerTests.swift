import FoundationEssentials
import Testing
import WakeProtocol
import WireFormat

@testable import PhoneCore

/// What the person can answer from the card, as a table of card states → answers, and the request
/// and replies of `POST /api/live-activity/tasks/{id}/answer` (docs/protocol.md §3.8).
@Suite struct PersonAnswerTests {
    /// The card `/current` gives for `snapshot` with the person's recorded `answer` and `dismissedAt` in it and
    /// `others` beside it.
    private func card(
        _ snapshot: SnapshotView?, answer: AnswerView? = nil, dismissedAt: String? = nil, others: OtherTasks? = nil
    ) -> Card {
        let shown = snapshot.map {
            var shown = $0
            shown.answer = answer ?? shown.answer
            shown.dismissedAt = dismissedAt ?? shown.dismissedAt
            return CurrentAnswer.snapshot(shown, others: others)
        }
        return Card.derive(link: Fixtures.usbUp, answer: shown ?? .notFound, problem: nil)
    }

    /// The answers the agent acts on are followed; a dismissal only takes the ended card away.
    @Test func everyAnswerButADismissalIsFollowed() {
        #expect(Answer.allCases.filter(\.isFollowed) == [.stop, .done, .refuse])
    }

    @Test func theAnswersEachCardStateOffers() {
        var notStoppable = Fixtures.running
        notStoppable.canStop = false
        var stoppableHandoff = Fixtures.handoff
        stoppableHandoff.canStop = true
        var unstoppableNeedsApp = Fixtures.needsApp
        unstoppableNeedsApp.canStop = false
        let stopRecorded = AnswerView(answer: "stop", answerID: "ans-1")
        let doneRecorded = AnswerView(answer: "done", answerID: "ans-2")
        let table: [(String, Card, [Answer])] = [
            ("running, can_stop", card(Fixtures.running), [.stop]),
            ("running, not stoppable", card(notStoppable), []),
            ("running, stop already recorded", card(Fixtures.running, answer: stopRecorded), []),
            ("handoff, can_stop", card(stoppableHandoff), [.stop, .done, .refuse]),
            (
                "handoff answered done, still waiting", card(stoppableHandoff, answer: doneRecorded),
                [.stop, .done, .refuse]
            ),
            ("needs_app, not stoppable", card(unstoppableNeedsApp), [.done, .refuse]),
            ("completed", card(Fixtures.ended(.completed)), [.dismiss]),
            ("failed", card(Fixtures.ended(.failed, error: "x")), [.dismiss]),
            ("canceled", card(Fixtures.ended(.canceled)), [.dismiss]),
            ("canceled, dismissed", card(Fixtures.ended(.canceled), dismissedAt: "2026-06-12T07:02:00Z"), []),
            ("standby", card(nil), []),
            (
                "disconnected", Card.derive(link: Fixtures.usbDown, answer: .snapshot(Fixtures.running), problem: nil),
                []
            ),
        ]
        for (name, card, expected) in table {
            #expect(Answer.available(on: card) == expected, "\(name)")
        }
    }

    @Test func keysAndConfirmation() {
        #expect(Answer.allCases.map(\.key) == ["s", "d", "r", "x"])
        #expect(Answer.stop.confirmation(title: "Open Settings") == "Stop “Open Settings”? y/N")
        #expect(Answer.dismiss.confirmation(title: "a\u{1B}[2Jb") == "Dismiss “a [2Jb”? y/N")
        #expect(Answer.done.confirmation(title: nil) == "Done this task? y/N")
    }

    @Test func theAnswerRequest() {
        let request = BoardRequest.answer(requestID: "chat:1", .stop, answerID: "ans-5f0c", phoneID: "phone-1")
        #expect(request.method == "POST")
        #expect(request.target == "/api/live-activity/tasks/chat%3A1/answer")
        #expect(request.headers.map(\.0) == ["Content-Type"])
        #expect(
            String(decoding: request.body, as: UTF8.self)
                == #"{"answer":"stop","answer_id":"ans-5f0c","phone_id":"phone-1"}"#)
    }

    @Test func theAnswerRequestCarriesTheRevisionShown() {
        let request = BoardRequest.answer(
            requestID: "chat_1", .done, answerID: "ans-1", phoneID: "p1", revision: 18_446_744_073_709_551_615)
        #expect(
            String(decoding: request.body, as: UTF8.self)
                == #"{"answer":"done","answer_id":"ans-1","phone_id":"p1","revision":18446744073709551615}"#)
    }

    @Test func answerIDsAreFreshAndWithinTheIdentifierRule() {
        var random = SplitMix64(seed: 7)
        let first = Answer.newAnswerID(using: &random)
        let second = Answer.newAnswerID(using: &random)
        #expect(first != second)
        #expect(first.hasPrefix("ans-") && first.count == 20)
        #expect(IdentifierRule.isValid(first) && IdentifierRule.isValid(second))
    }

    @Test func theAppStateReportCarriesThePhonesClockOnceStamped() {
        let report = BoardRequest.appState(.foreground, returnEntry: .card, phoneID: "p1")
        #expect(!String(decoding: report.body, as: UTF8.self).contains("phone_time"))
        let stamped = report.stamped(at: Date(timeIntervalSince1970: 1_781_247_605.75))
        #expect(
            String(decoding: stamped.body, as: UTF8.self)
                == #"{"state":"foreground","return_entry":"card","return_entry_available":true,"#
                + #""phone_id":"p1","phone_time":"2026-06-12T07:00:05Z"}"#)
        // Only the app state is stamped.
        #expect(BoardRequest.status.stamped(at: Date()) == .status)
    }

    @Test func outcomesInWords() {
        let receipt =
            #"{"ok":true,"answer":{"answer":"stop","answer_id":"ans-1","phone_id":"p1","answered_at":"2026-06-12T07:00:09Z"},"task":{"request_id":"chat_1","task_title":"Open Settings"}}"#
        let recorded = AnswerOutcome.interpret(
            .answered(status: 200, etag: nil, body: Array(receipt.utf8)), answer: .stop, requestID: "chat_1",
            answerID: "ans-1", title: nil)
        #expect(recorded.succeeded)
        #expect(recorded.line == "Stop requested for “Open Settings” (chat_1)")
        if case let .recorded(body) = recorded.result {
            #expect(
                body.answer
                    == AnswerView(
                        answer: "stop", answerID: "ans-1", phoneID: "p1", answeredAt: "2026-06-12T07:00:09Z"))
        } else {
            Issue.record("not recorded")
        }
        let conflict = #"{"status":"error","error":{"code":"not_stoppable","message":"the task cannot be stopped"}}"#
        let refused = AnswerOutcome.interpret(
            .answered(status: 409, etag: nil, body: Array(conflict.utf8)), answer: .stop, requestID: "chat_1",
            answerID: "ans-2", title: "Open Settings")
        #expect(!refused.succeeded)
        #expect(
            refused.line
                == "Could not stop “Open Settings” (chat_1): board answered HTTP 409: not_stoppable: the task cannot be stopped"
        )
        let lost = AnswerOutcome.interpret(
            .failed(detail: "127.0.0.1:8080: refused"), answer: .dismiss, requestID: "chat_1", answerID: "ans-3",
            title: nil)
        #expect(lost.line == "Could not dismiss task (chat_1): board unreachable: 127.0.0.1:8080: refused")
        let notOK = AnswerOutcome.interpret(
            .answered(status: 200, etag: nil, body: Array(#"{"ok":false}"#.utf8)), answer: .done, requestID: "c",
            answerID: "ans-4", title: nil)
        #expect(!notOK.succeeded)
    }

    @Test func theCardsNewLines() {
        let renderer = CardTextRenderer(options: .init(width: 60, keys: true))
        let lines = renderer.lines(
            for: card(Fixtures.running, answer: AnswerView(answer: "stop"), others: OtherTasks(active: 2, waiting: 1)))
        #expect(lines.contains("Stop requested — waiting for the agent"))
        #expect(lines.contains("+2 running · 1 waiting"))
        #expect(!lines.contains(where: { $0.hasPrefix("Keys:") }))  // the stop is recorded: nothing to press
        var handoff = Fixtures.handoff
        handoff.canStop = true
        let waiting = renderer.lines(for: card(handoff, answer: AnswerView(answer: "done")))
        #expect(waiting.contains("Answered: done"))
        #expect(waiting.contains("Keys: s stop, d done, r refuse"))
        #expect(renderer.lines(for: card(Fixtures.ended(.completed))).contains("Keys: x dismiss"))
        // No counts, no keys where none are read: the card as before.
        let plain = CardTextRenderer(options: .init(width: 60)).lines(
            for: card(Fixtures.running, others: OtherTasks(active: 0, waiting: 0)))
        #expect(plain == CardTextRenderer(options: .init(width: 60)).lines(for: card(Fixtures.running)))
        #expect(OtherTasks(active: 0, waiting: 3).cardLine == "3 waiting")
        #expect(OtherTasks(active: 1, waiting: 0).cardLine == "+1 running")
    }

    @Test func theCurrentBodyIsReadWithAndWithoutTheNewMembers() throws {
        let new =
            #"{"status":"ok","live_activity":{"request_id":"chat_1","status":"running","answer":{"answer":"stop","answer_id":"ans-1"},"#
            + #""dismissed_at":null,"others":{"active":2,"waiting":1}}}"#
        let read = try current(new)
        #expect(read.task.answer == AnswerView(answer: "stop", answerID: "ans-1") && read.task.dismissedAt == nil)
        #expect(read.others == OtherTasks(active: 2, waiting: 1))
        #expect(card(read.task).recordedAnswer == AnswerView(answer: "stop", answerID: "ans-1"))
        // `others` beside the snapshot in the envelope is taken too.
        let beside = #"{"status":"ok","others":{"active":0,"waiting":4},"live_activity":{"request_id":"chat_1"}}"#
        #expect(try current(beside).others == OtherTasks(active: 0, waiting: 4))
        // An older board: none of them, nothing fails.
        let old = try current(#"{"status":"ok","live_activity":{"request_id":"chat_1","status":"running"}}"#)
        #expect(old.task.answer == nil && old.task.dismissedAt == nil && old.others == nil)
        // Wrong types read as absent.
        let odd = try current(
            #"{"status":"ok","live_activity":{"request_id":"c","answer":"stop","dismissed_at":5,"others":[]}}"#)
        #expect(odd.task.answer == nil && odd.task.dismissedAt == nil && odd.others == nil)
        // An answer without a name is no recorded answer on the card.
        let unnamed = try current(#"{"status":"ok","live_activity":{"request_id":"c","answer":{"answer_id":"a"}}}"#)
        #expect(card(unnamed.task).recordedAnswer == nil)
    }

    /// The snapshot and `others` of a `/current` body that must show a task.
    private func current(_ text: String) throws -> (task: SnapshotView, others: OtherTasks?) {
        guard case let .snapshot(task, others) = try BoardAnswer.current(from: Array(text.utf8)) else {
            throw BoardAnswerError(kind: .missingField, field: "live_activity", message: "no task in \(text)")
        }
        return (task, others)
    }
}

/// The card's keys: a transcript of key presses and what the shell is told to do.
@Suite struct AnswerPromptTests {
    @Test func transcript() {
        var handoff = Fixtures.handoff
        handoff.canStop = true
        let waiting = Card.derive(link: Fixtures.usbUp, answer: .snapshot(handoff), problem: nil)
        let ended = Card.derive(link: Fixtures.usbUp, answer: .snapshot(Fixtures.ended(.completed)), problem: nil)
        var prompt = AnswerPrompt()
        let steps: [(Character, Card?, AnswerPrompt.Output)] = [
            ("x", waiting, .none),  // not offered on a waiting task
            ("q", waiting, .none),
            ("s", waiting, .show("Stop “Open Settings”? y/N")),
            ("n", waiting, .show("Stop: not sent.")),
            ("d", waiting, .show("Done “Open Settings”? y/N")),
            ("y", ended, .send(.done, requestID: "chat_1", revision: 42)),  // the task the question named
            ("r", waiting, .show("Refuse “Open Settings”? y/N")),
            ("Y", waiting, .send(.refuse, requestID: "chat_1", revision: 42)),
            ("s", ended, .none),
            ("x", ended, .show("Dismiss “Open Settings”? y/N")),
            ("x", ended, .show("Dismiss: not sent.")),  // only y confirms
            ("d", nil, .none),
        ]
        for (index, (key, card, expected)) in steps.enumerated() {
            #expect(prompt.press(key, card: card) == expected, "step \(index): \(key)")
        }
        #expect(prompt.question == nil)
    }
}
