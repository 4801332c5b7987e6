import NetworkAddress
import Testing

@testable import HTTPServer

/// The deadlines, the per-user count, the sweep's next instant and the budgets' evictions as a timeline: no
/// sockets, time passed in.
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
        #expect(table.open(1, descriptor: 10, peer: .unix(1000), at: .zero) == 1)
        #expect(table.open(2, descriptor: 11, peer: .unix(1000), at: .zero) == 2)
        #expect(table.open(3, descriptor: 12, peer: .unix(0), at: .zero) == 1, "another uid has its own count")
        #expect(table.open(4, descriptor: 13, peer: .unix(1000), at: .zero) == 3)
        #expect(table.refuse(4) == 13)
        #expect(table.refuse(99) == nil)
        table.answered(4, at: .seconds(1))
        #expect(table.overdue(at: .seconds(60), deadline: .seconds(5)).sorted() == [10, 11, 12])
        #expect(table.open(5, descriptor: 14, peer: .unix(1000), at: .zero) == 3, "the refused one no longer counts")
        table.close(4)
        table.close(1)
        #expect(table.open(6, descriptor: 15, peer: .unix(1000), at: .zero) == 3)
        table.close(2)
        table.close(5)
        table.close(6)
        #expect(table.open(7, descriptor: 16, peer: .unix(1000), at: .zero) == 1)
    }

    /// An agent is its user, however many processes it runs: the limit counts the uid, never the process, so one
    /// agent's 40 processes (each holding a connection, as `aidenctl task run` and a loop of heartbeats do) keep at
    /// most the per-peer limit, and the listener's other slots stay free for another agent. The overflow uid, what
    /// a user namespace shows for every user it does not map, is one user too: never a way around the limit.
    @Test func oneUsersProcessesShareItsLimitAndAnotherUserStillGetsASlot() {
        let limits = HTTPServerLimits(connectionLimit: 32, perPeerConnectionLimit: 8)
        for hog in [UInt32(1000), 65534] {
            var table = ConnectionTable()
            var held = 0
            for process in 0..<40 {
                let id = UInt(process)
                let open = table.open(
                    id, descriptor: Int32(process), peer: ConnectionTable.peerKey(uid: hog), at: .zero)
                if open > limits.perPeerConnectionLimit { _ = table.refuse(id) } else { held += 1 }
            }
            #expect(held == limits.perPeerConnectionLimit, "uid \(hog): its processes share one count")
            #expect(table.open(100, descriptor: 100, peer: ConnectionTable.peerKey(uid: 1001), at: .zero) == 1)
            #expect(held + 1 <= limits.connectionLimit, "the second agent's connection has a slot")
            #expect(ConnectionTable.peerKey(uid: hog) != ConnectionTable.peerKey(uid: 1001))
        }
    }

    static let phoneHost = ConnectionTable.Peer.address(IPAddress(v4: 192, 168, 42, 2))
    static let budget = ConnectionTable.Budget(perPeer: 3, served: 5, refused: 2)

    /// At its cap a peer's new connection takes the slot of the one that has waited longest without a complete
    /// request, never one whose request is being answered; when all are, the new one is shut down.
    @Test func aPeerAtItsCapEvictsItsLongestWaitingConnection() {
        var table = ConnectionTable()
        for id in UInt(1)...3 {
            table.open(id, descriptor: Int32(id) + 10, peer: Self.phoneHost, at: .milliseconds(Int64(id)))
            #expect(table.makeRoom(for: id, within: Self.budget).isEmpty)
        }
        table.requestArrived(1)  // being answered: not evictable, though it opened first
        table.open(4, descriptor: 14, peer: Self.phoneHost, at: .milliseconds(10))
        #expect(table.makeRoom(for: 4, within: Self.budget) == [12], "2 waited longest")
        table.answered(1, at: .milliseconds(11))  // waiting again, since 11 ms
        table.open(5, descriptor: 15, peer: Self.phoneHost, at: .milliseconds(12))
        #expect(table.makeRoom(for: 5, within: Self.budget) == [13], "3 has waited since 3 ms, 1 only since 11")
        table.requestArrived(1)
        table.requestArrived(4)
        table.requestArrived(5)
        table.open(6, descriptor: 16, peer: Self.phoneHost, at: .milliseconds(13))
        #expect(table.makeRoom(for: 6, within: Self.budget) == [16], "all are being answered: the new one goes")
        #expect(table.makeRoom(for: 6, within: Self.budget).isEmpty, "cut once")
    }

    /// All served connections together have a budget too: over it, the longest waiting of any peer goes. Refused
    /// peers' connections count in their own budget, never in the phone's.
    @Test func theServedAndTheRefusedHaveTheirOwnBudgets() {
        var table = ConnectionTable()
        let others = (1...4).map { ConnectionTable.Peer.address(IPAddress(v4: 192, 168, 42, UInt8(10 + $0))) }
        for (index, peer) in others.enumerated() {
            let id = UInt(index + 1)
            table.open(id, descriptor: Int32(id) + 10, peer: peer, at: .milliseconds(Int64(id)))
            #expect(table.makeRoom(for: id, within: Self.budget).isEmpty)
        }
        let outsider = ConnectionTable.Peer.address(IPAddress(v4: 10, 99, 0, 2))
        var cut: [[Int32]] = []
        for id in UInt(20)..<24 {
            table.open(id, descriptor: Int32(id) + 10, peer: outsider, refused: true, at: .milliseconds(Int64(id)))
            cut.append(table.makeRoom(for: id, within: Self.budget))
        }
        #expect(cut == [[], [], [30], [31]], "over 2 refused: the oldest refused one makes room")
        table.open(5, descriptor: 15, peer: Self.phoneHost, at: .milliseconds(30))
        #expect(table.makeRoom(for: 5, within: Self.budget).isEmpty, "refused peers hold none of the 5 served slots")
        table.open(6, descriptor: 16, peer: Self.phoneHost, at: .milliseconds(31))
        #expect(table.makeRoom(for: 6, within: Self.budget) == [11], "over 5 served: the longest waiting, any peer")
    }

    /// The header deadline runs from the opening only, until the first request's headers are in.
    @Test func theHeaderDeadlineRunsFromTheOpening() {
        var table = ConnectionTable()
        table.open(1, descriptor: 10, at: .zero)
        table.open(2, descriptor: 11, at: .zero)
        table.headersArrived(2)
        #expect(table.overdue(at: .seconds(1), deadline: .seconds(5), headerDeadline: .seconds(1)).isEmpty)
        #expect(table.overdue(at: .milliseconds(1_001), deadline: .seconds(5), headerDeadline: .seconds(1)) == [10])
        #expect(table.overdue(at: .seconds(5), deadline: .seconds(5), headerDeadline: .seconds(1)).isEmpty)
        #expect(table.overdue(at: .milliseconds(5_001), deadline: .seconds(5), headerDeadline: .seconds(1)) == [11])
    }

    /// A connection whose request came with it, as the phone's does, is taken only after every waiting one without:
    /// however many a peer opens before the server loop reads it, none that holds a slot by saying nothing can take
    /// its place. Once read, it is like any other.
    @Test func aConnectionWithItsRequestInGoesAfterEveryOneWithout() {
        var table = ConnectionTable()
        table.open(1, descriptor: 11, peer: Self.phoneHost, requestIn: true, at: .milliseconds(1))
        #expect(table.makeRoom(for: 1, within: Self.budget).isEmpty)
        for id in UInt(2)...3 {
            table.open(id, descriptor: Int32(id) + 10, peer: Self.phoneHost, at: .milliseconds(Int64(id)))
            #expect(table.makeRoom(for: id, within: Self.budget).isEmpty)
        }
        var cut: [[Int32]] = []
        for id in UInt(4)...6 {
            table.open(id, descriptor: Int32(id) + 10, peer: Self.phoneHost, at: .milliseconds(Int64(id)))
            cut.append(table.makeRoom(for: id, within: Self.budget))
        }
        #expect(cut == [[12], [13], [14]], "the silent ones go, oldest first; 1 waited longest but has its request in")
        table.open(7, descriptor: 17, peer: Self.phoneHost, requestIn: true, at: .milliseconds(7))
        #expect(table.makeRoom(for: 7, within: Self.budget) == [15])
        table.open(8, descriptor: 18, peer: Self.phoneHost, requestIn: true, at: .milliseconds(8))
        #expect(table.makeRoom(for: 8, within: Self.budget) == [16])
        table.open(9, descriptor: 19, peer: Self.phoneHost, requestIn: true, at: .milliseconds(9))
        #expect(table.makeRoom(for: 9, within: Self.budget) == [11], "all have their requests in: the oldest goes")
        table.headersArrived(7)  // read: its body may trickle, like any other's
        table.open(10, descriptor: 20, peer: Self.phoneHost, requestIn: true, at: .milliseconds(10))
        #expect(table.makeRoom(for: 10, within: Self.budget) == [17])
    }

    /// A cut connection (evicted, overdue, refused) still counts until the loop closes it, at its next read of it (shut
    /// down, its socket reads as ended at once), so the loop never holds more descriptors than its intake limit.
    @Test func aCutConnectionCountsUntilItCloses() {
        var table = ConnectionTable()
        table.open(1, descriptor: 10, peer: Self.phoneHost, at: .zero)
        table.open(2, descriptor: 11, peer: Self.phoneHost, at: .zero)
        #expect(table.count == 2)
        #expect(table.refuse(1) == 10)
        #expect(table.count == 2, "cut, not yet closed")
        table.close(1)
        #expect(table.count == 1)
        table.close(1)
        #expect(table.count == 1, "closing twice forgets once")
    }
}
