import Testing
import WireFormat

@testable import PhoneCore

/// The dock's launcher entry per session (`LauncherEntry`): the waiting tasks as the count, the shown task's
/// progress, urgent while one asks.
@Suite struct LauncherEntryTests {
    static func card(_ snapshot: SnapshotView, id: String = "chat_1") -> Card {
        var snapshot = snapshot
        snapshot.requestID = id
        return Card(state: CardState(snapshot: snapshot), snapshot: snapshot, link: Fixtures.usbUp)
    }

    @Test(arguments: [
        ([Card](), LauncherEntry()),
        ([card(Fixtures.running)], LauncherEntry(progress: 0.21)),
        (
            [card(Fixtures.running, id: "a"), card(Fixtures.handoff)],
            LauncherEntry(count: 1, progress: 0.5, urgent: true)
        ),
        (
            [card(Fixtures.handoff, id: "a"), card(Fixtures.needsApp)],
            LauncherEntry(count: 2, progress: 0.5, urgent: true)
        ),
        ([card(Fixtures.ended(.completed))], LauncherEntry()),
    ])
    func eachSessionGivesItsEntry(cards: [Card], entry: LauncherEntry) {
        #expect(LauncherEntry(cards: cards, current: nil) == entry)
    }

    @Test func everyPropertyIsSentWithItsVisibility() {
        #expect(
            LauncherEntry(count: 2, progress: 0.5, urgent: true).properties == [
                "count": .integer(2), "count-visible": .flag(true), "progress": .number(0.5),
                "progress-visible": .flag(true), "urgent": .flag(true),
            ])
        #expect(
            LauncherEntry().properties == [
                "count": .integer(0), "count-visible": .flag(false), "progress": .number(0),
                "progress-visible": .flag(false), "urgent": .flag(false),
            ])
    }
}
