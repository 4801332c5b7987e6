import FoundationEssentials
import Testing
import WireFormat

/// The tolerant reading the phone and aidenctl rely on against a newer or older board.
@Suite struct SnapshotViewTests {
    private func view(_ json: String) throws -> SnapshotView {
        try JSONDecoder().decode(SnapshotView.self, from: Data(json.utf8))
    }

    @Test func unknownNamesAreKeptAsSent() throws {
        let snapshot = try view(#"{"request_id":"chat_1","status":"paused","phase":"dreaming"}"#)
        #expect(snapshot.status == .unknown("paused"))
        #expect(snapshot.phase == .unknown("dreaming"))
        #expect(snapshot.status?.rawValue == "paused")
        #expect(snapshot.status?.known == nil)
    }

    @Test func unknownMembersAreIgnoredAndWrongTypesReadAsAbsent() throws {
        let snapshot = try view(
            #"{"request_id":"chat_1","future_field":[1,2],"progress":"half","can_stop":"yes","revision":-1,"#
                + #""task_title":7,"status":"running"}"#)
        #expect(snapshot == SnapshotView(requestID: "chat_1", status: .known(.running)))
    }

    @Test func aMissingRequestIDIsTheReadersBusiness() throws {
        #expect(try view(#"{"status":"completed"}"#) == SnapshotView(status: .known(.completed)))
        #expect(try view("{}") == SnapshotView())
    }

    @Test func notAnObjectFails() {
        #expect(throws: DecodingError.self) { try view("[]") }
        #expect(throws: DecodingError.self) { try view(#""chat_1""#) }
    }

    @Test func roundTripsWithUnknownValues() throws {
        let original = SnapshotView(
            requestID: "chat_1", phoneID: "p", status: "paused", phase: .known(.acting), taskTitle: "T",
            currentStep: "S", currentAction: "A", currentTarget: "X", currentApp: "App", lastToolName: "tool",
            lastError: "E", progress: 0.5, showsProgress: true, canStop: false, requiresApp: true,
            startedAt: "2026-06-12T07:00:00Z", updatedAt: "2026-06-12T07:00:01Z", endedAt: nil, revision: 9)
        let again = try JSONDecoder().decode(SnapshotView.self, from: JSONEncoder().encode(original))
        #expect(again == original)
    }
}
