import Dispatch
import Platform
import Synchronization
import Testing

/// A lane for blocking work: one at a time, in order, and a drain that waits for what came before.
@Suite struct LaneTests {
    @Test func workRunsInOrderAndADrainWaitsForIt() {
        let lane = Lane("test.lane.order")
        let seen = Mutex<[Int]>([])
        for index in 0..<500 { lane.run { seen.withLock { $0.append(index) } } }
        lane.drain()
        #expect(seen.withLock { $0 } == Array(0..<500))
        #expect(lane.name == "test.lane.order")
    }

    /// A lane held by work that does not end is not waited for past the limit; once it ends, it is.
    @Test func aBoundedDrainGivesUpOnAStuckLane() {
        let lane = Lane("test.lane.stuck")
        let release = DispatchSemaphore(value: 0)
        lane.run { release.wait() }
        #expect(!lane.drain(within: .milliseconds(50)))
        release.signal()
        #expect(lane.drain(within: .seconds(10)))
    }
}
