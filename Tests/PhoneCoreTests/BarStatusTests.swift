import Testing
import WireFormat

@testable import PhoneCore

/// The bar's one line (`aiden-phone status`): which task it is about, its words, the counts, the class, the
/// percentage, and waybar's JSON object.
@Suite struct BarStatusTests {
    static func card(
        _ snapshot: SnapshotView, id: String = "chat_1", link: LinkState = Fixtures.usbUp,
        problem: BoardProblem? = nil, others: OtherTasks? = nil
    ) -> Card {
        var snapshot = snapshot
        snapshot.requestID = id
        if id != "chat_1" { snapshot.taskTitle = "Task " + id.uppercased() }
        return Card(
            state: CardState(snapshot: snapshot), snapshot: snapshot, problem: problem, link: link, others: others)
    }

    static let standby = Card(state: .standby, link: Fixtures.usbUp)
    static let disconnected = Card(state: .disconnected, link: Fixtures.usbDown)

    struct Row: Sendable, CustomTestStringConvertible {
        var name: String
        var cards: [Card]
        var current: Card?
        var kind: BarStatus.Kind
        var text: String
        var percentage: Int?
        var requestID: String?
        var testDescription: String { name }
    }

    static let rows: [Row] = [
        Row(
            name: "not started", cards: [], current: nil, kind: .disconnected, text: "Waiting for the board"),
        Row(
            name: "no task, connected", cards: [], current: standby, kind: .standby,
            text: "Connected to the board"),
        Row(
            name: "no task, cable out", cards: [], current: disconnected, kind: .disconnected,
            text: "The USB link to the board is down"),
        Row(
            name: "one running", cards: [card(Fixtures.running)], current: standby, kind: .running,
            text: "Open Settings — Checking the current screen 21%", percentage: 21, requestID: "chat_1"),
        Row(
            name: "a handoff before a running task, with the others counted",
            cards: [
                card(Fixtures.running, id: "a"), card(Fixtures.handoff), card(Fixtures.running, id: "b"),
                card(Fixtures.needsApp, id: "c"),
            ], current: nil, kind: .handoff,
            text: "Your turn: Open Settings — Enter the Wi-Fi password · +2 running · 1 waiting", percentage: 50,
            requestID: "chat_1"),
        Row(
            name: "the app wanted", cards: [card(Fixtures.ended(.completed), id: "a"), card(Fixtures.needsApp)],
            current: nil, kind: .needsApp, text: "Open the app: Open Settings", requestID: "chat_1"),
        Row(
            name: "the board's count wins on the current task",
            cards: [card(Fixtures.running, others: OtherTasks(active: 3, waiting: 0))],
            current: nil, kind: .running, text: "Open Settings — Checking the current screen 21% · +3 running",
            percentage: 21, requestID: "chat_1"),
        Row(
            name: "every task ended",
            cards: [card(Fixtures.ended(.completed)), card(Fixtures.ended(.failed, error: "x"), id: "b")],
            current: nil, kind: .done, text: "All done", requestID: "chat_1"),
        Row(
            name: "a title that is only control characters, no progress shown",
            cards: [
                {
                    var snapshot = Fixtures.running
                    snapshot.taskTitle = "\u{1b}\u{7}"
                    snapshot.currentStep = nil
                    snapshot.showsProgress = false
                    return card(snapshot)
                }()
            ], current: nil, kind: .running, text: "Task chat_1", requestID: "chat_1"),
    ]

    @Test(arguments: rows)
    func eachSessionGivesItsLine(row: Row) {
        let status = BarStatus(cards: row.cards, current: row.current)
        #expect(status.kind == row.kind)
        #expect(status.text == row.text)
        #expect(status.percentage == row.percentage)
        #expect(status.requestID == row.requestID)
        #expect(!status.text.contains("\n"), "one line")
    }

    /// What an answer without an ID is for: the task the line leads with, at the revision its card shows, with its
    /// title; none while no task is seen.
    @Test func theLinesTaskCarriesTheRevisionItsCardShows() {
        var handoff = Fixtures.handoff
        handoff.revision = 7
        let status = BarStatus(cards: [Self.card(Fixtures.running, id: "a"), Self.card(handoff)], current: nil)
        #expect(status.task == ShownTask(requestID: "chat_1", revision: 7, title: "Open Settings"))
        var untitled = Fixtures.ended(.completed)
        untitled.taskTitle = nil
        untitled.revision = nil
        #expect(
            BarStatus(cards: [Self.card(untitled)], current: nil).task
                == ShownTask(requestID: "chat_1", revision: nil, title: nil))
        #expect(BarStatus(cards: [], current: Self.standby).task == nil)
    }

    @Test func theTooltipListsEveryTaskAndSaysWhenItIsStale() {
        let status = BarStatus(
            cards: [
                Self.card(Fixtures.running, problem: .unreachable(detail: "refused")),
                Self.card(Fixtures.ended(.failed, error: "wrong password"), id: "b"),
            ], current: nil)
        #expect(
            status.tooltip
                == "Open Settings: running — Checking the current screen\nTask B: failed — wrong password\n"
                + "Not up to date: the board does not answer")
        let unplugged = BarStatus(cards: [Self.card(Fixtures.handoff, link: Fixtures.usbDown)], current: nil)
        #expect(unplugged.tooltip.hasSuffix("\nNot up to date: the USB link to the board is down"))
    }

    @Test func longBoardTextIsCutAndControlCharactersNeverReachTheLine() {
        var snapshot = Fixtures.handoff
        snapshot.taskTitle = String(repeating: "t", count: 100) + "\n\u{1b}[2J"
        snapshot.currentStep = String(repeating: "s", count: 100)
        let status = BarStatus(cards: [Self.card(snapshot)], current: nil)
        #expect(
            status.text
                == "Your turn: " + String(repeating: "t", count: 37) + "... — " + String(repeating: "s", count: 37)
                + "...")
        #expect(!status.tooltip.unicodeScalars.contains { $0.value < 0x20 && $0 != "\n" })
    }

    @Test(arguments: [
        (
            BarStatus(kind: .handoff, text: "Your turn: \"A\"", tooltip: "a\nb", percentage: 50),
            #"{"text":"Your turn: \"A\"","tooltip":"a\nb","class":"handoff","percentage":50}"#
        ),
        (
            BarStatus(kind: .needsApp, text: "Open the app: A", tooltip: "A"),
            #"{"text":"Open the app: A","tooltip":"A","class":"needs-app"}"#
        ),
        (
            BarStatus.offline,
            #"{"text":"aiden-phone is not running","tooltip":"aiden-phone is not running","class":"offline"}"#
        ),
    ])
    func waybarGetsOneObjectPerLine(status: BarStatus, json: String) {
        #expect(status.waybarJSON == json)
    }
}
