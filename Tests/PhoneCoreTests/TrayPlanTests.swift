import Testing
import WireFormat

@testable import PhoneCore

/// The tray item's decisions (`TrayPlan`): its status, icon and tooltip per session, the menu per task, and a
/// press answering the revision the menu was built for, once.
@Suite struct TrayPlanTests {
    static func card(_ snapshot: SnapshotView, id: String = "chat_1", revision: UInt64 = 42) -> Card {
        var snapshot = snapshot
        snapshot.requestID = id
        snapshot.revision = revision
        if id != "chat_1" { snapshot.taskTitle = "Task " + id.uppercased() }
        return Card(state: CardState(snapshot: snapshot), snapshot: snapshot, link: Fixtures.usbUp)
    }

    static let standby = Card(state: .standby, link: Fixtures.usbUp)

    struct Row: Sendable, CustomTestStringConvertible {
        var name: String
        var cards: [Card]
        var current: Card?
        var status: TrayPlan.Status
        var icon: String
        var tooltipTitle: String
        var menu: [String]
        var testDescription: String { name }
    }

    static let rows: [Row] = [
        Row(
            name: "connected, no task", cards: [], current: standby, status: .passive, icon: "phone",
            tooltipTitle: "Connected to the board", menu: ["Connected to the board"]),
        Row(
            name: "no board", cards: [], current: nil, status: .passive, icon: "network-offline",
            tooltipTitle: "Waiting for the board", menu: ["Waiting for the board"]),
        Row(
            name: "running", cards: [card(Fixtures.running)], current: nil, status: .active,
            icon: "media-playback-start", tooltipTitle: "Open Settings — Checking the current screen 21%",
            menu: ["Open Settings: running — Checking the current screen", "Stop", "Show card"]),
        Row(
            name: "a handoff beside a running task", cards: [card(Fixtures.running, id: "a"), card(Fixtures.handoff)],
            current: nil, status: .needsAttention, icon: "dialog-question",
            tooltipTitle: "Your turn: Open Settings — Enter the Wi-Fi password · +1 running",
            menu: [
                "Task A: running — Checking the current screen", "Stop", "Show card", "-",
                "Open Settings: your turn — Enter the Wi-Fi password", "Stop", "Done", "Refuse", "Show card",
            ]),
        Row(
            name: "the app wanted", cards: [card(Fixtures.needsApp)], current: nil, status: .needsAttention,
            icon: "dialog-question", tooltipTitle: "Open the app: Open Settings",
            menu: ["Open Settings: open the app — Waiting for the Aiden app", "Stop", "Done", "Refuse", "Show card"]),
        Row(
            name: "all done", cards: [card(Fixtures.ended(.completed))], current: nil, status: .passive,
            icon: "emblem-default", tooltipTitle: "All done",
            menu: ["Open Settings: completed", "Dismiss", "Show card"]),
    ]

    @Test(arguments: rows)
    func eachSessionGivesItsItemAndMenu(row: Row) {
        var plan = TrayPlan()
        _ = plan.show(row.cards, current: row.current)
        #expect(plan.item.status == row.status)
        #expect(plan.item.iconName == row.icon)
        #expect(plan.item.tooltipTitle == row.tooltipTitle)
        #expect(plan.entries.map { $0.isSeparator ? "-" : $0.label } == row.menu)
        // Only answers and Show card do something; the task's words are a label.
        #expect(
            plan.entries.filter { $0.action != nil }.allSatisfy {
                ["Stop", "Done", "Refuse", "Dismiss", "Show card"].contains($0.label)
            })
    }

    @Test func onlyWhatChangedIsSignalledAndAnUnchangedSessionSaysNothing() {
        var plan = TrayPlan()
        #expect(
            plan.show([], current: Self.standby) == [.iconChanged, .tooltipChanged, .layoutChanged(revision: 2)])
        #expect(plan.show([], current: Self.standby) == [])
        #expect(
            plan.show([Self.card(Fixtures.running)], current: nil)
                == [.statusChanged(.active), .iconChanged, .tooltipChanged, .layoutChanged(revision: 3)])
        var stepped = Fixtures.running
        stepped.progress = 0.3
        // Progress moves the tooltip; the menu shows no progress, so its layout stays.
        #expect(plan.show([Self.card(stepped)], current: nil) == [.tooltipChanged])
        #expect(
            plan.show([Self.card(Fixtures.handoff, revision: 43)], current: nil)
                == [.statusChanged(.needsAttention), .iconChanged, .tooltipChanged, .layoutChanged(revision: 4)])
    }

    @Test func aPressAnswersTheRevisionTheMenuShowedOnce() throws {
        var plan = TrayPlan()
        _ = plan.show([Self.card(Fixtures.handoff, revision: 43)], current: nil)
        let done = try #require(plan.entries.first { $0.label == "Done" })
        #expect(plan.event(id: done.id, kind: "hovered") == [])
        #expect(
            plan.event(id: done.id, kind: "clicked")
                == [.perform(.answer(.done, requestID: "chat_1", revision: 43))])
        #expect(plan.event(id: done.id, kind: "clicked") == [], "a second press sends nothing")
        let show = try #require(plan.entries.first { $0.label == "Show card" })
        #expect(plan.event(id: show.id, kind: "clicked") == [.perform(.open(requestID: "chat_1"))])
        let label = try #require(plan.entries.first)
        #expect(plan.event(id: label.id, kind: "clicked") == [], "the task's words do nothing")
        #expect(plan.event(id: 0, kind: "clicked") == [], "nor does the root")

        // The task asks again: a new layout, new ids; a press on the old menu's Done matches nothing.
        var again = Fixtures.handoff
        again.currentStep = "Enter the PIN"
        _ = plan.show([Self.card(again, revision: 44)], current: nil)
        #expect(plan.event(id: done.id, kind: "clicked") == [])
        let newDone = try #require(plan.entries.first { $0.label == "Done" })
        #expect(newDone.id != done.id)
        #expect(
            plan.event(id: newDone.id, kind: "clicked")
                == [.perform(.answer(.done, requestID: "chat_1", revision: 44))])
    }
}
