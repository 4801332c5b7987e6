import FoundationEssentials
import Testing
import WakeProtocol
import WireFormat

@testable import LiveActivity

/// `TaskStoreEncoder` writes what `LiveActivityJSON.makeEncoder()` writes, byte for byte, whatever the store went
/// through since the pieces it keeps were made: `tasks.json` keeps its one form.
@Suite struct TaskStoreEncoderTests {
    static func expected(_ store: TaskStore) throws -> String {
        String(decoding: try LiveActivityJSON.makeEncoder().encode(store), as: UTF8.self)
    }

    @Test func writesWhatTheEncoderWrites() throws {
        var busy = try TaskStorePersistenceTests.busyStore()
        var encoder = TaskStoreEncoder()
        let empty = TaskStore(generation: "gen-0")
        #expect(String(decoding: try encoder.encode(empty), as: UTF8.self) == (try Self.expected(empty)))
        #expect(String(decoding: try encoder.encode(busy), as: UTF8.self) == (try Self.expected(busy)))
        busy.anchorClocks(now: at(6), instant: .seconds(100))
        var fresh = TaskStoreEncoder()
        let withAges = String(decoding: try fresh.encode(busy), as: UTF8.self)
        #expect(withAges == (try Self.expected(busy)))
        #expect(withAges.contains(#""elapsed":{"#), "each task's age, as a restart continues from it")
    }

    /// The board makes a change on a copy of its store and drops the copy when the save fails: the next change to
    /// the same task then takes the same revision with other content, and must be written as it is, not as the
    /// dropped attempt was.
    @Test func aDroppedAttemptsTaskIsNotWrittenForTheNextChange() throws {
        var store = TaskStore(generation: "gen-1")
        _ = try store.startTask("job-1", title: "Before", at: at(0))
        var encoder = TaskStoreEncoder()
        _ = try encoder.encode(store)
        var dropped = store
        _ = try dropped.end(id: "job-1", TaskEnd(status: .completed), now: at(1))
        _ = try encoder.encode(dropped)  // its save fails; the session keeps `store`
        var retried = store
        _ = try retried.end(id: "job-1", TaskEnd(status: .failed, lastError: "gave up"), now: at(2))
        #expect(retried.task(id: "job-1")?.revision == dropped.task(id: "job-1")?.revision)
        let written = String(decoding: try encoder.encode(retried), as: UTF8.self)
        #expect(written == (try Self.expected(retried)))
        #expect(written.contains(#""status":"failed""#) && !written.contains(#""status":"completed""#))
    }

    /// A seeded walk of every kind of change, one encoder throughout: its kept pieces never outlive the value
    /// they were made from (a changed task, a ring that wrapped, a new generation whose ids start again).
    @Test func keptPiecesFollowEveryChange() throws {
        var store = TaskStore(generation: "gen-1", capacity: 6, transitionCapacity: 5)
        var encoder = TaskStoreEncoder()
        var random = SplitMix64(seed: 2026)
        var generator = SplitMix64(seed: 7)
        var ids: [String] = []
        var mismatches: [Int] = []
        var seen: Set<String> = []
        for step in 0..<300 {
            let now = at(Double(step) * 0.75)
            let id = ids.isEmpty ? nil : ids[Int(random.next() % UInt64(ids.count))]
            switch random.next() % 9 {
            case 0, 1:
                let draft = TaskDraft(
                    taskTitle: "Task \(step) a/b \"q\"", phoneID: step % 3 == 0 ? "p1" : "", canStop: true)
                let key = step % 4 == 0 ? "key-\(step % 8)" : nil
                if let started = try? store.start(draft, idempotencyKey: key, now: now, using: &generator) {
                    ids.append(started.snapshot.requestID)
                }
            case 2, 3:
                if let id {
                    _ = try? store.update(id: id, patch: TaskPatch(progress: Double(step % 10) / 10), now: now)
                }
            case 4:
                if let id { _ = try? store.end(id: id, TaskEnd(status: .completed), now: now) }
            case 5:
                if let id {
                    _ = try? store.answer(
                        id: id, AnswerRequest(answer: .stop, answerID: "ans-\(step)", phoneID: ""), now: now)
                }
            case 6:
                _ = store.prune(now: now, retention: .seconds(20))
            case 7:
                store.anchorClocks(now: now, instant: .seconds(Int64(step)))
            default:
                if let id { _ = try? store.heartbeat(id: id, now: now) }
            }
            // A new generation every 60 steps: its ids start again at 1, so kept events must not be reused by id.
            if step % 60 == 59 { store.resetTransitions(generation: "gen-\(step)") }
            let written = String(decoding: try encoder.encode(store), as: UTF8.self)
            if written != (try Self.expected(store)) { mismatches.append(step) }
            for part in [#""elapsed""#, #""fingerprint""#, #""answer_id""#, #""status":"completed""#]
            where written.contains(part) {
                seen.insert(part)
            }
        }
        #expect(mismatches.isEmpty)
        #expect(store.transitions.generation == "gen-299", "the ring was given new generations")
        #expect(seen.count == 4, "ages, idempotency records, answers and ended tasks were written: \(seen)")
    }
}
