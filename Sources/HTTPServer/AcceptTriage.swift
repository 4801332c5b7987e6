import NetworkAddress

/// Which of the connections one turn of the accept loop takes from the kernel's queue go on to libmicrohttpd, decided
/// as they come so that no more are held than go on; the others are closed at once. The loop takes the whole queue
/// each turn, so the phone's new connection waits behind none a process on the phone host opened before it; this
/// keeps those from being handed over in its place. Per peer, at most `perPeer` go on, those whose request is already
/// in first (the phone client writes its request whole right after it connects; a connection that holds a slot says
/// nothing or trickles), then the newest: more would only take each other's slots at once
/// (`ConnectionTable.makeRoom`). In all, at most `room`, what libmicrohttpd can still take (over its limit it would
/// close a connection unanswered), of which the last `reserved` only for connections with their request in: the
/// connections a flood evicts stay counted until libmicrohttpd closes them, and cannot use up the room the phone's
/// request needs. Pure.
struct AcceptTriage {
    struct Arrival: Equatable, Sendable {
        let peer: IPAddress
        /// Its request's line and headers were in its socket buffer when it was looked at.
        var requestIn: Bool
    }

    let perPeer: Int
    let room: Int
    let reserved: Int
    /// The connections to hand over, by key (the descriptor), in the order they came.
    private(set) var held: [(key: Int32, arrival: Arrival)] = []

    init(perPeer: Int, room: Int, reserved: Int) {
        self.perPeer = perPeer
        self.room = room
        self.reserved = reserved
    }

    /// Takes one more connection; returns the keys of those to close now (this one, or one taken before that it
    /// outranks). Before one without its request is dropped, `requestIn` looks again: its request may have come since.
    mutating func take(_ key: Int32, _ arrival: Arrival, requestIn: (Int32) -> Bool) -> [Int32] {
        held.append((key, arrival))
        var dropped: [Int32] = []
        func drop(among belongs: (Arrival) -> Bool, over limit: Int) {
            var among = held.indices.filter { belongs(held[$0].arrival) }
            guard among.count > max(limit, 0) else { return }
            // The oldest without its request, unless it has it now; else the oldest.
            while let silent = among.first(where: { !held[$0].arrival.requestIn }), requestIn(held[silent].key) {
                held[silent].arrival.requestIn = true
                among = among.filter { belongs(held[$0].arrival) }
            }
            guard among.count > max(limit, 0) else { return }
            guard let worst = among.first(where: { !held[$0].arrival.requestIn }) ?? among.first else { return }
            dropped.append(held.remove(at: worst).key)
        }
        drop(among: { $0.peer == arrival.peer }, over: perPeer)
        drop(among: { _ in true }, over: room)
        drop(among: { !$0.requestIn }, over: room - reserved)
        return dropped
    }
}
