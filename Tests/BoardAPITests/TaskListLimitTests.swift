import FoundationEssentials
import LiveActivity
import TestSupport
import Testing
import WireFormat

@testable import BoardAPI

/// The largest answer on the agent socket is a full task list; its size is what `WireLimits` says, exactly.
@Suite struct TaskListLimitTests {
    @Test func aFullStoreAtTheSnapshotLimitIsExactlyTheListBound() throws {
        var board = try RouterFixture()
        board.state.store = try FullTaskStore.make(now: board.now)
        #expect(board.state.store.count == WireLimits.maxTasks)
        let list = board.agent("GET", "/v1/tasks")
        #expect(list.status == 200)
        #expect(list.response.body.count == WireLimits.maxTaskListBytes)
        #expect(WireLimits.maxTaskListBytes == 1_048_857)
        #expect(list.response.body.count > 1 << 20, "over the 1 MiB aidenctl used to accept")
    }

    /// A store never holds more than the bound counts on, even when its file asks for more.
    @Test func noStoreHoldsMoreTasksThanTheBoundCounts() throws {
        #expect(TaskStore(generation: "g", capacity: 10_000).capacity == WireLimits.maxTasks)
        let file =
            #"{"format":1,"revision":0,"capacity":10000,"tasks":[],"transitions":"#
            + #"{"generation":"g","capacity":256,"last_id":0,"events":[]}}"#
        let decoded = try JSONDecoder().decode(TaskStore.self, from: Data(file.utf8))
        #expect(decoded.capacity == WireLimits.maxTasks)
    }
}
