import Testing

@testable import HTTPServer

/// The request deadline and the per-process count as a timeline: no sockets, time passed in.
@Suite struct ConnectionTableTests {
    @Test func aConnectionHasTheDeadlineFromItsOpeningAndFromEachAnswer() {
        var table = ConnectionTable()
        table.open(1, descriptor: 10, at: .seconds(0))
        table.open(2, descriptor: 11, at: .seconds(3))
        #expect(table.overdue(at: .seconds(5), deadline: .seconds(5)).isEmpty, "exactly at the deadline is in time")
        #expect(table.overdue(at: .milliseconds(5_001), deadline: .seconds(5)) == [10])
        #expect(table.overdue(at: .seconds(7), deadline: .seconds(5)).isEmpty, "each is cut once")
        // Connection 2 delivers a request at 4 s; its handler takes 20 s (an agent's write behind a slow disk).
        table.requestArrived(2)
        #expect(table.overdue(at: .seconds(24), deadline: .seconds(5)).isEmpty, "a request being handled waits")
        table.answered(2, at: .seconds(24))
        #expect(table.overdue(at: .seconds(29), deadline: .seconds(5)).isEmpty)
        #expect(table.overdue(at: .seconds(30), deadline: .seconds(5)) == [11], "idle after its answer")
        table.close(1)
        table.close(2)
        #expect(table.count == 0)
    }

    @Test func theSweepIsDueAtTheEarliestWaitsDeadlineAndNeverWhileNoneWaits() {
        var table = ConnectionTable()
        #expect(table.nextDeadline(.seconds(5)) == nil, "no connection: no timer, an idle server sleeps")
        table.open(1, descriptor: 10, at: .seconds(1))
        table.open(2, descriptor: 11, at: .seconds(3))
        #expect(table.nextDeadline(.seconds(5)) == .seconds(6))
        table.requestArrived(1)
        #expect(table.nextDeadline(.seconds(5)) == .seconds(8), "a request being handled does not wait")
        #expect(table.overdue(at: .milliseconds(8_001), deadline: .seconds(5)) == [11])
        #expect(table.nextDeadline(.seconds(5)) == nil, "cut, and the other is being handled")
        table.answered(1, at: .seconds(9))
        #expect(table.nextDeadline(.seconds(5)) == .seconds(14))
        table.close(1)
        table.close(2)
        #expect(table.nextDeadline(.seconds(5)) == nil)
    }

    @Test func aRefusedConnectionIsNotCutAgainNorCounted() {
        var table = ConnectionTable()
        #expect(table.open(1, descriptor: 10, peer: 1000, at: .zero) == 1)
        #expect(table.open(2, descriptor: 11, peer: 1000, at: .zero) == 2)
        #expect(table.open(3, descriptor: 12, peer: 0, at: .zero) == 1, "another uid has its own count")
        #expect(table.open(4, descriptor: 13, peer: 1000, at: .zero) == 3)
        #expect(table.refuse(4) == 13)
        #expect(table.refuse(99) == nil)
        table.answered(4, at: .seconds(1))
        #expect(table.overdue(at: .seconds(60), deadline: .seconds(5)).sorted() == [10, 11, 12])
        #expect(table.open(5, descriptor: 14, peer: 1000, at: .zero) == 3, "the refused one no longer counts")
        table.close(4)
        table.close(1)
        #expect(table.open(6, descriptor: 15, peer: 1000, at: .zero) == 3)
        table.close(2)
        table.close(5)
        table.close(6)
        #expect(table.open(7, descriptor: 16, peer: 1000, at: .zero) == 1)
    }

    /// Users the service's user namespace does not map all look like the overflow uid: they count per process.
    @Test func anUnmappedUserCountsPerProcess() {
        #expect(ConnectionTable.peerKey(uid: 1000, pid: 7) == ConnectionTable.peerKey(uid: 1000, pid: 8))
        #expect(ConnectionTable.peerKey(uid: 65534, pid: 7) != ConnectionTable.peerKey(uid: 65534, pid: 8))
        #expect(ConnectionTable.peerKey(uid: 65534, pid: 7) != ConnectionTable.peerKey(uid: 7, pid: 7))
        var table = ConnectionTable()
        #expect(table.open(1, descriptor: 10, peer: ConnectionTable.peerKey(uid: 65534, pid: 7), at: .zero) == 1)
        #expect(table.open(2, descriptor: 11, peer: ConnectionTable.peerKey(uid: 65534, pid: 8), at: .zero) == 1)
        #expect(table.open(3, descriptor: 12, peer: ConnectionTable.peerKey(uid: 65534, pid: 7), at: .zero) == 2)
    }
}
