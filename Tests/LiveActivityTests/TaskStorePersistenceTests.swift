import FoundationEssentials
import Testing
import WakeProtocol

@testable import LiveActivity

@Suite struct TaskStorePersistenceTests {
    /// A store that has seen every kind of change, with sub-second times.
    static func busyStore() throws -> TaskStore {
        var store = TaskStore(generation: "gen-7f", capacity: 8, transitionCapacity: 4)
        var generator = SplitMix64(seed: 11)
        _ = try store.start(
            TaskDraft(taskTitle: "Open Settings", phoneID: "p1", progress: 0.1),
            idempotencyKey: "key-1", now: at(0.123), using: &generator)
        try store.startTask("chat_b", phone: "", title: "Ünïcödé 🙂 \"quoted\" a/b", at: at(1.5))
        _ = try store.update(
            id: "chat_b", patch: TaskPatch(status: .needsApp, lastError: "line1\nline2"),
            now: at(2.25))
        _ = try store.update(
            id: "chat_b", patch: TaskPatch(phase: .waitingUser, currentAction: "request_user_input"),
            now: at(3))
        _ = try store.end(
            id: "chat_b", TaskEnd(status: .failed, lastError: "gave up", dismissAfterSeconds: 45), now: at(4.999))
        return store
    }

    @Test func roundTripsLosslessly() throws {
        let store = try Self.busyStore()
        let json = try LiveActivityJSON.makeEncoder().encode(store)
        let restored = try JSONDecoder().decode(TaskStore.self, from: json)
        #expect(restored == store)
        #expect(try LiveActivityJSON.makeEncoder().encode(restored) == json)
        #expect(restored.transitions.events.count == 4)
        #expect(restored.capacity == 8)
    }

    @Test func aStoreWrittenBeforeDismissalLoadsWithTheBoardsRetention() throws {
        let json = try LiveActivityJSON.makeEncoder().encode(try Self.busyStore())
        let text = String(decoding: json, as: UTF8.self)
            .replacing(#""dismiss_after_seconds":45,"#, with: "")
            .replacing(#""dismiss_after_seconds":null,"#, with: "")
            .replacing(#""dismissed_at":null,"#, with: "")
        #expect(!text.contains("dismiss"))
        let restored = try JSONDecoder().decode(TaskStore.self, from: Data(text.utf8))
        #expect(restored.task(id: "chat_b")?.dismissAfterSeconds == nil)
        #expect(restored.task(id: "chat_b")?.dismissedAt == nil)
        #expect(restored.count == 2)
    }

    @Test func aRestoredStoreKeepsCountingAndHonoursIdempotencyKeys() throws {
        let store = try Self.busyStore()
        var restored = try JSONDecoder().decode(TaskStore.self, from: JSONEncoder().encode(store))
        var generator = SplitMix64(seed: 99)
        let replay = try restored.start(
            TaskDraft(taskTitle: "Open Settings", phoneID: "p1", progress: 0.1),
            idempotencyKey: "key-1", now: at(10), using: &generator)
        #expect(replay.durability == .unchanged)
        #expect(restored.count == 2)
        let next = try restored.startTask("chat_c", at: at(11))
        #expect(next.revision == store.revision + 1)
        #expect(restored.transitions.lastID == store.transitions.lastID + 1)
    }

    @Test func decodingIgnoresUnknownKeys() throws {
        let store = try Self.busyStore()
        var text = String(decoding: try JSONEncoder().encode(store), as: UTF8.self)
        text = #"{"written_by":"a future version","# + text.dropFirst()
        text = text.replacing(#""request_id":"chat_b","#, with: #""request_id":"chat_b","color":"blue","#)
        #expect(try JSONDecoder().decode(TaskStore.self, from: Data(text.utf8)) == store)
    }

    /// Damage done to a sound store before it is written; each must make loading fail.
    static let damages: [@Sendable (inout TaskStore) -> Void] = [
        { $0.revision = 2 },
        { $0.snapshots["chat_b"]?.endedAt = nil },
        { $0.snapshots["chat_b"]?.status = .running },
        { $0.snapshots["chat_b"]?.revision = 1 },
        { $0.idempotencyRecords["k2"] = IdempotencyRecord(key: "k2", requestID: "gone", fingerprint: 1) },
        { store in
            let first = store.idempotencyRecords["key-1"]?.requestID ?? ""
            store.idempotencyRecords["k3"] = IdempotencyRecord(key: "k3", requestID: first, fingerprint: 1)
        },
    ]

    @Test func decodingRefusesAnInconsistentStore() throws {
        for (index, damage) in Self.damages.enumerated() {
            var store = try Self.busyStore()
            damage(&store)
            let json = try JSONEncoder().encode(store)
            #expect(throws: DecodingError.self, "damage \(index)") {
                try JSONDecoder().decode(TaskStore.self, from: json)
            }
        }
    }

    @Test func decodingRefusesAnotherFormat() throws {
        let text = String(decoding: try JSONEncoder().encode(Self.busyStore()), as: UTF8.self)
        let other = text.replacing(#""format":1"#, with: #""format":2"#)
        #expect(other != text)
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(TaskStore.self, from: Data(other.utf8)) }
    }

    @Test func duplicateTaskIDsAreRefused() throws {
        var store = try Self.busyStore()
        try store.startTask("chat_c", at: at(20))
        let text = String(decoding: try JSONEncoder().encode(store), as: UTF8.self)
        let doubled = text.replacing(#""chat_c""#, with: #""chat_b""#)
        #expect(doubled != text)
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(TaskStore.self, from: Data(doubled.utf8)) }
    }

    @Test func invariantsHoldAfterEveryKindOfChangeAndCatchDamage() throws {
        var store = try Self.busyStore()
        #expect(store.consistencyProblems().isEmpty)
        store.snapshots["chat_b"]?.endedAt = nil
        store.idempotencyRecords["orphan"] = IdempotencyRecord(key: "orphan", requestID: "missing", fingerprint: 0)
        let problems = store.consistencyProblems()
        #expect(problems.contains { $0.contains("ended_at") })
        #expect(problems.contains { $0.contains("missing task missing") })
    }
}
