import FoundationEssentials
import Testing
import WireFormat

@testable import LiveActivity

@Suite struct TransitionLogTests {
    /// A ring of capacity 3 that has seen events 1...5 (1 and 2 evicted).
    static func ringWithEvictions() -> TransitionLog {
        var log = TransitionLog(generation: "gen-a", capacity: 3)
        for index in 1...5 {
            log.append(requestID: "r\(index)", transition: .started, at: at(Double(index)))
        }
        return log
    }

    @Test func appendsConsecutiveIDsAndEvictsTheOldest() {
        let log = Self.ringWithEvictions()
        #expect(log.events.map(\.id) == [3, 4, 5])
        #expect(log.events.map(\.requestID) == ["r3", "r4", "r5"])
        #expect(log.lastID == 5)
        #expect(log.consistencyProblems().isEmpty)
    }

    struct Query: Sendable, CustomTestStringConvertible {
        var since: UInt64
        var generation: String?
        var ids: [UInt64]
        var truncated: Bool
        var resetRequired: Bool

        var testDescription: String { "since \(since) generation \(generation ?? "nil")" }
    }

    @Test(arguments: [
        Query(since: 0, generation: "gen-a", ids: [3, 4, 5], truncated: true, resetRequired: false),
        Query(since: 1, generation: "gen-a", ids: [3, 4, 5], truncated: true, resetRequired: false),
        Query(since: 2, generation: "gen-a", ids: [3, 4, 5], truncated: false, resetRequired: false),
        Query(since: 3, generation: "gen-a", ids: [4, 5], truncated: false, resetRequired: false),
        Query(since: 4, generation: nil, ids: [5], truncated: false, resetRequired: false),
        Query(since: 5, generation: "gen-a", ids: [], truncated: false, resetRequired: false),
        Query(since: 5, generation: nil, ids: [], truncated: false, resetRequired: false),
        Query(since: 6, generation: "gen-a", ids: [3, 4, 5], truncated: true, resetRequired: true),
        Query(since: 6, generation: nil, ids: [3, 4, 5], truncated: true, resetRequired: true),
        Query(since: 4, generation: "gen-old", ids: [3, 4, 5], truncated: true, resetRequired: true),
        Query(since: 0, generation: "", ids: [3, 4, 5], truncated: true, resetRequired: true),
    ])
    func eventsAfterACursor(query: Query) {
        let page = Self.ringWithEvictions().events(since: query.since, generation: query.generation)
        #expect(page.events.map(\.id) == query.ids)
        #expect(page.truncated == query.truncated)
        #expect(page.resetRequired == query.resetRequired)
        #expect(page.next == 5)
        #expect(page.generation == "gen-a")
    }

    @Test func anEmptyRingAnswersWithCursorZero() {
        let log = TransitionLog(generation: "g")
        #expect(
            log.events(since: 0, generation: nil)
                == EventsPage(generation: "g", events: [], next: 0, truncated: false, resetRequired: false))
        #expect(log.events(since: 3, generation: "g").resetRequired)
    }

    @Test func aRingWithoutEvictionsIsNeverTruncated() {
        var log = TransitionLog(generation: "g", capacity: 10)
        log.append(requestID: "a", transition: .started, at: at(0))
        log.append(requestID: "a", transition: .handoff, at: at(1))
        let page = log.events(since: 0, generation: "other")
        #expect(page.resetRequired)
        #expect(!page.truncated)
        #expect(page.events.map(\.transition) == [.started, .handoff])
    }

    @Test func resetStartsANewGenerationAndRestartsIDs() {
        var log = Self.ringWithEvictions()
        log.reset(generation: "gen-b")
        #expect(log.events.isEmpty)
        #expect(log.lastID == 0)
        let stale = log.events(since: 5, generation: "gen-a")
        #expect(stale == EventsPage(generation: "gen-b", events: [], next: 0, truncated: false, resetRequired: true))
        #expect(log.events(since: 5, generation: nil).resetRequired)
        let event = log.append(requestID: "r", transition: .completed, at: at(9))
        #expect(event.id == 1)
        #expect(log.events(since: 0, generation: "gen-b").events == [event])
    }

    @Test func storeResetBumpsTheRevision() throws {
        var store = TaskStore(generation: "gen-a")
        try store.startTask("a", at: at(0))
        store.resetTransitions(generation: "gen-b")
        #expect(store.revision == 2)
        #expect(store.events(since: 1, generation: "gen-a").resetRequired)
        #expect(store.events(since: 0, generation: "gen-b").events.isEmpty)
        #expect(store.task(id: "a") != nil)
    }

    @Test func pageAndEventJSON() throws {
        let page = Self.ringWithEvictions().events(since: 4, generation: "gen-a")
        let json = try LiveActivityJSON.makeEncoder().encode(page)
        let golden =
            #"{"events":[{"at":"2026-06-12T07:00:05Z","id":5,"phone_id":"","request_id":"r5","transition":"started"}],"#
            + #""generation":"gen-a","next":5,"reset_required":false,"truncated":false}"#
        #expect(String(decoding: json, as: UTF8.self) == golden)
        #expect(try JSONDecoder().decode(EventsPage.self, from: json) == page)
        #expect(
            Transition.allCases.map(\.rawValue)
                == [
                    "started", "handoff", "foreground_recovery", "completed", "failed", "canceled", "stop_requested",
                    "answered", "dismissed",
                ])
    }

    @Test func ringRoundTripsAndRefusesInconsistentJSON() throws {
        let log = Self.ringWithEvictions()
        let json = try JSONEncoder().encode(log)
        #expect(try JSONDecoder().decode(TransitionLog.self, from: json) == log)

        let gap =
            #"{"generation":"g","capacity":3,"last_id":5,"events":[{"id":3,"request_id":"r","#
            + #""transition":"started","at":"2026-06-12T07:00:00Z"},{"id":5,"request_id":"r","#
            + #""transition":"started","at":"2026-06-12T07:00:00Z"}]}"#
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(TransitionLog.self, from: Data(gap.utf8)) }
        let behind =
            #"{"generation":"g","capacity":3,"last_id":0,"events":[{"id":1,"request_id":"r","#
            + #""transition":"started","at":"2026-06-12T07:00:00Z"}]}"#
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(TransitionLog.self, from: Data(behind.utf8)) }
    }
}

@Suite struct AnsweredEventCodingTests {
    @Test func anAnsweredEventCarriesItsAnswerAndOthersDoNot() throws {
        var ring = TransitionLog(generation: "g")
        ring.append(requestID: "r1", transition: .answered, at: at(1), answer: .refuse)
        ring.append(requestID: "r1", transition: .stopRequested, at: at(2))
        let json = try LiveActivityJSON.makeEncoder().encode(ring.events)
        let golden =
            #"[{"answer":"refuse","at":"2026-06-12T07:00:01Z","id":1,"request_id":"r1","transition":"answered"},"#
            + #"{"at":"2026-06-12T07:00:02Z","id":2,"request_id":"r1","transition":"stop_requested"}]"#
        #expect(String(decoding: json, as: UTF8.self) == golden)
        #expect(try JSONDecoder().decode([TransitionEvent].self, from: json) == ring.events)
    }
}
