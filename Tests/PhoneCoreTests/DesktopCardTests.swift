import Testing
import WireFormat

@testable import PhoneCore

/// What each task's notification says (`DesktopCard`): fixed words in the summary, the board's text only in the
/// body, the progress hint, the buttons by state, the revision its buttons answer.
@Suite struct DesktopCardTests {
    static func card(_ snapshot: SnapshotView, link: LinkState = Fixtures.usbUp, answer: AnswerView? = nil) -> Card {
        var shown = snapshot
        shown.answer = answer ?? shown.answer
        return Card(state: CardState(snapshot: shown), snapshot: shown, link: link)
    }

    @Test(arguments: [
        (Fixtures.running, "Task running", "transfer", [DesktopCard.Button.open, .answer(.stop)], Int32?(21)),
        (
            Fixtures.handoff, "Your turn on the phone", "im.received",
            [.open, .answer(.stop), .answer(.done), .answer(.refuse)], 50
        ),
        (
            Fixtures.needsApp, "Bring the companion app to the foreground", "im.received",
            [.open, .answer(.stop), .answer(.done), .answer(.refuse)], nil
        ),
        (Fixtures.ended(.completed), "Task completed", "transfer.complete", [.open, .answer(.dismiss)], nil),
        (
            Fixtures.ended(.failed, error: "wrong password"), "Task failed", "transfer.error",
            [.open, .answer(.dismiss)], nil
        ),
        (Fixtures.ended(.canceled), "Task canceled", "transfer", [.open, .answer(.dismiss)], nil),
    ])
    func eachStateSaysItsWordsAndOffersItsButtons(
        snapshot: SnapshotView, summary: String, category: String, buttons: [DesktopCard.Button], progress: Int32?
    ) throws {
        let card = try #require(DesktopCard(Self.card(snapshot)))
        #expect(card.subject == .task("chat_1"))
        #expect(card.summary == summary)
        #expect(card.category == category)
        #expect(card.buttons == buttons)
        #expect(card.progress == progress)
        #expect(card.revision == 42)
        #expect(card.body.hasPrefix("Open Settings"))
        #expect(card.expireMilliseconds == 0, "a task's card stays until it leaves")
        #expect(card.resident, "a press does not take it off the screen")
    }

    @Test func theBodyHasTheStepTheErrorTheAnswerAndAStaleLink() throws {
        let handoff = try #require(DesktopCard(Self.card(Fixtures.handoff)))
        #expect(handoff.body == "Open Settings\nEnter the Wi-Fi password")
        let failed = try #require(DesktopCard(Self.card(Fixtures.ended(.failed, error: "wrong password"))))
        #expect(failed.body == "Open Settings\nwrong password")
        let stopped = try #require(
            DesktopCard(
                Self.card(
                    Fixtures.running, link: Fixtures.usbDown,
                    answer: AnswerView(answer: "stop", answerID: "a", phoneID: "", answeredAt: "t"))))
        #expect(
            stopped.body
                == "Open Settings\nChecking the current screen\nStop requested\n"
                + "Not up to date: the USB link to the board is down")
        #expect(stopped.buttons == [.open], "a recorded stop is not offered again")
    }

    /// The tool line with its start, not a running count: a notification is replaced only when it changes.
    @Test func aRunningCardShowsItsToolLineWithItsStart() throws {
        var task = Fixtures.running
        task.toolStatus = "Taking a screenshot"
        task.toolStartedAt = "2026-06-12T07:00:02Z"
        let card = try #require(DesktopCard(Self.card(task)))
        #expect(
            card.body == "Open Settings\nChecking the current screen\nTool: Taking a screenshot · since 07:00:02 UTC")
        task.toolStatus = ""
        #expect(try #require(DesktopCard(Self.card(task))).body == "Open Settings\nChecking the current screen")
    }

    /// The board's words never reach the summary, and control characters never reach either.
    @Test func boardTextOnlyInTheBodyAndClean() throws {
        var snapshot = Fixtures.ended(.failed, error: "<a href=\"x\">tap</a> & retry\u{1B}[2J")
        snapshot.taskTitle = "Open <b>Settings</b>"
        let card = try #require(DesktopCard(Self.card(snapshot)))
        #expect(card.summary == "Task failed")
        #expect(card.body == "Open <b>Settings</b>\n<a href=\"x\">tap</a> & retry [2J")
    }

    @Test(arguments: [(-1.0, Int32(0)), (0.004, 0), (0.996, 100), (7.0, 100), (Double.nan, nil)])
    func progressIsAPercentWithinBounds(progress: Double, value: Int32?) throws {
        var snapshot = Fixtures.running
        snapshot.progress = progress
        #expect(try #require(DesktopCard(Self.card(snapshot))).progress == value)
    }

    @Test func noTaskNoCard() {
        #expect(DesktopCard(Card(state: .standby, link: Fixtures.usbUp)) == nil)
    }

    @Test func anAlertAloneSaysWhatItsAlertSays() {
        let connected = DesktopCard(alert: Alert(transition: .connected, connectionID: "usb-1-7"))
        #expect(connected.subject == .connection("usb-1-7"))
        #expect(connected.summary == "Connected to the board")
        #expect(connected.body == "Session usb-1-7")
        #expect(connected.buttons.isEmpty)
        #expect(connected.expireMilliseconds == -1)
        #expect(!connected.resident)
        var handoff = Alert(transition: .handoff, requestID: "chat_9", title: "Deploy", step: "Production?")
        handoff.canStop = true
        let alone = DesktopCard(alert: handoff)
        #expect(alone.subject == .task("chat_9"))
        #expect(alone.body == "Deploy: Production?")
        #expect(alone.buttons == [.open, .answer(.stop), .answer(.done), .answer(.refuse)])
    }
}
