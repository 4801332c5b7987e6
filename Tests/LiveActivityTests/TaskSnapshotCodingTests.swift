import FoundationEssentials
import Testing
import WireFormat

@testable import LiveActivity

@Suite struct TaskSnapshotCodingTests {
    /// The snapshot example of docs/task-store.md (docs/protocol.md §4.1, with the dismissal members and the
    /// person's answer), with a concrete id.
    static let contractExample = """
        {
          "request_id": "chat_7f3a", "phone_id": "",
          "status": "running",
          "phase": "observing",
          "task_title": "Open Settings", "current_step": "Checking the current screen",
          "current_action": "observe_screen", "current_target": "", "current_app": "",
          "last_tool_name": "screenshot", "last_error": "", "tool_status": "", "tool_started_at": null, "locale": "",
          "progress": 0.21, "shows_progress": true, "can_stop": true, "requires_app": false,
          "stale_after_seconds": 300, "abandon_after_seconds": 3600, "stale_since": null,
          "started_at": "2026-06-12T07:00:00Z", "updated_at": "2026-06-12T07:00:02Z",
          "ended_at": null, "dismiss_after_seconds": null, "dismissed_at": null, "revision": 42, "answer": null
        }
        """

    static let example = TaskSnapshot(
        requestID: "chat_7f3a", phoneID: "", status: .running, phase: .observing, taskTitle: "Open Settings",
        currentStep: "Checking the current screen", currentAction: "observe_screen", currentTarget: "",
        currentApp: "", lastToolName: "screenshot", lastError: "", progress: 0.21, showsProgress: true,
        canStop: true, requiresApp: false, startedAt: at(0), updatedAt: at(2), endedAt: nil, revision: 42)

    @Test func encodesTheContractShapeExactly() throws {
        let json = try LiveActivityJSON.makeEncoder().encode(Self.example)
        let golden =
            #"{"abandon_after_seconds":3600,"answer":null,"can_stop":true,"current_action":"observe_screen","#
            + #""current_app":"","current_step":"Checking the current screen","current_target":"","#
            + #""dismiss_after_seconds":null,"#
            + #""dismissed_at":null,"ended_at":null,"#
            + #""last_error":"","last_tool_name":"screenshot","locale":"","phase":"observing","phone_id":"","progress":0.21,"#
            + #""request_id":"chat_7f3a","requires_app":false,"revision":42,"shows_progress":true,"#
            + #""stale_after_seconds":300,"stale_since":null,"started_at":"2026-06-12T07:00:00Z","status":"running","task_title":"Open Settings","#
            + #""tool_started_at":null,"tool_status":"","updated_at":"2026-06-12T07:00:02Z"}"#
        #expect(String(decoding: json, as: UTF8.self) == golden)
    }

    @Test func encodesTheSameKeysAsTheContractExample() throws {
        let contract = try JSONDecoder().decode([String: JSONValue].self, from: Data(Self.contractExample.utf8))
        let ours = try JSONDecoder().decode(
            [String: JSONValue].self, from: JSONEncoder().encode(Self.example))
        #expect(Set(ours.keys) == Set(contract.keys))
        #expect(ours == contract)
    }

    @Test func decodesTheContractExampleIgnoringUnknownKeys() throws {
        let json = Self.contractExample.replacing(
            "\"revision\": 42",
            with: """
                "revision": 42, "future_field": {"nested": [1, 2]}
                """)
        let snapshot = try JSONDecoder().decode(TaskSnapshot.self, from: Data(json.utf8))
        #expect(snapshot == Self.example)
    }

    @Test func endedSnapshotsRoundTripWithMilliseconds() throws {
        var snapshot = Self.example
        snapshot.status = .failed
        snapshot.updatedAt = Timestamp.normalized(at(9.25))
        snapshot.endedAt = snapshot.updatedAt
        let json = try JSONEncoder().encode(snapshot)
        #expect(String(decoding: json, as: UTF8.self).contains(#""ended_at":"2026-06-12T07:00:09.250Z""#))
        #expect(try JSONDecoder().decode(TaskSnapshot.self, from: json) == snapshot)
    }

    @Test func decodingRejectsABadTimestampNamingTheKey() {
        let json = Self.contractExample.replacing("2026-06-12T07:00:02Z", with: "yesterday")
        #expect(throws: DecodingError.self) {
            try JSONDecoder().decode(TaskSnapshot.self, from: Data(json.utf8))
        }
        do {
            _ = try JSONDecoder().decode(TaskSnapshot.self, from: Data(json.utf8))
        } catch let error as DecodingError {
            #expect(TaskValidationError(error).field == "updated_at")
        } catch {
            Issue.record("unexpected error \(error)")
        }
    }

    @Test func handoffStateNeedsBothPhaseAndAction() {
        var snapshot = Self.example
        snapshot.phase = .waitingUser
        #expect(!snapshot.isAwaitingUser)
        snapshot.currentAction = "request_user_input"
        #expect(snapshot.isAwaitingUser)
        snapshot.phase = .acting
        #expect(!snapshot.isAwaitingUser)
    }
}
