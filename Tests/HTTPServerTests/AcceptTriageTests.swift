import NetworkAddress
import Testing

@testable import HTTPServer

/// What one turn of the server loop's accepting keeps and what it closes as the connections come: no sockets.
@Suite struct AcceptTriageTests {
    static let phoneHost = IPAddress(v4: 192, 168, 42, 2)
    static let loopback = IPAddress(v4: 127, 0, 0, 1)

    /// Takes `arrivals` (key = index) and returns the keys held at the end and the most held at once.
    static func run(
        _ arrivals: [AcceptTriage.Arrival], perPeer: Int, room: Int, reserved: Int,
        arrivedSince: Set<Int32> = []
    ) -> (held: [Int32], most: Int) {
        var triage = AcceptTriage(perPeer: perPeer, room: room, reserved: reserved)
        var most = 0
        for (index, arrival) in arrivals.enumerated() {
            _ = triage.take(Int32(index), arrival, requestIn: { arrivedSince.contains($0) })
            most = max(most, triage.held.count)
        }
        return (triage.held.map(\.key), most)
    }

    static func silent(_ count: Int, from peer: IPAddress = phoneHost) -> [AcceptTriage.Arrival] {
        Array(repeating: AcceptTriage.Arrival(peer: peer, requestIn: false), count: count)
    }

    static let request = AcceptTriage.Arrival(peer: phoneHost, requestIn: true)

    /// The phone's connection came behind a thousand another process on its host opened and holds: it is handed
    /// over, with the newest of the others up to the peer's budget; the rest were closed as they came.
    @Test func aRequestBehindAThousandSilentConnectionsIsKept() {
        let turn = Self.run(
            Self.silent(1_000) + [Self.request] + Self.silent(500), perPeer: 24, room: 104, reserved: 12)
        #expect(turn.held == [1_000] + (1_478...1_500).map { Int32($0) })
        #expect(turn.most == 24, "never more held than opened")
    }

    /// A connection taken before its request came is looked at again before it is dropped: the phone's, accepted
    /// between its handshake and its request.
    @Test func aRequestThatCameSinceIsLookedAtAgain() {
        let turn = Self.run(
            Self.silent(1) + Self.silent(100), perPeer: 24, room: 104, reserved: 12, arrivedSince: [0])
        #expect(turn.held == [0] + (78...100).map { Int32($0) })
    }

    /// Every peer has its own budget in the turn; each keeps its requests first, then its newest.
    @Test func eachPeerKeepsItsOwnBudget() {
        let arrivals =
            [AcceptTriage.Arrival(peer: Self.loopback, requestIn: true)] + Self.silent(5)
            + Self.silent(2, from: Self.loopback)
        #expect(Self.run(arrivals, perPeer: 2, room: 10, reserved: 0).held == [0, 4, 5, 7])
    }

    /// Never more than the listener has room for: the requests first, then the newest, in the order they came;
    /// the last of the room only for requests.
    @Test func theRoomLeftBoundsTheTurn() {
        let arrivals = Self.silent(3) + [Self.request] + Self.silent(3)
        #expect(Self.run(arrivals, perPeer: 24, room: 3, reserved: 0).held == [3, 5, 6])
        #expect(Self.run(arrivals, perPeer: 24, room: 3, reserved: 2).held == [3, 6])
        #expect(Self.run(arrivals, perPeer: 24, room: 1, reserved: 1).held == [3])
        #expect(Self.run(arrivals, perPeer: 24, room: 0, reserved: 1).held.isEmpty)
        #expect(Self.run(arrivals, perPeer: 24, room: -2, reserved: 1).held.isEmpty)
    }
}
