import NetworkAddress

/// Which of the connections one turn of the server's loop takes from the kernel's queue are opened, decided as they
/// come so that no more are held than are opened; the others are closed at once. The loop takes the whole queue
/// (in turns), so the phone's new connection waits behind none a process on the phone host opened before it; this
/// keeps those from being opened in its place. Per peer, at most `perPeer` are opened, those whose request is already
/// in first (the phone client writes its request whole right after it connects; a connection that holds a slot says
/// nothing or trickles), then the newest: more would only take each other's slots at once
/// (`ConnectionTable.makeRoom`). In all, at most `room`, what the loop's intake limit still allows, of which the last
/// `reserved` only for connections with their request in: silent connections, however many one turn takes, cannot
/// use up the room the phone's request needs. Pure.
struct AcceptTriage {
    struct Arrival: Equatable, Sendable {
        let peer: IPAddress
        /// Its request's line and headers were in its socket buffer when it was looked at.
        var requestIn: Bool
    }

    let perPeer: Int
    let room: Int
    let reserved: Int
    /// The connections to open, by key (the descriptor), in the order they came.
    private(set) var held: [(key: Int32, arrival: Arrival)] = []
    /// How many of `held` each peer has, and how many are without their request: kept as they change, so that a
    /// flood costs each connection a look at the oldest held, not a count of them all.
    private var heldByPeer: [IPAddress: Int] = [:]
    private var silent = 0

    init(perPeer: Int, room: Int, reserved: Int) {
        self.perPeer = perPeer
        self.room = room
        self.reserved = reserved
    }

    /// Takes one more connection; returns the keys of those to close now (this one, or one taken before that it
    /// outranks). Before one without its request is dropped, `requestIn` looks again: its request may have come since.
    mutating func take(_ key: Int32, _ arrival: Arrival, requestIn: (Int32) -> Bool) -> [Int32] {
        held.append((key, arrival))
        heldByPeer[arrival.peer, default: 0] += 1
        if !arrival.requestIn { silent += 1 }
        var dropped: [Int32] = []
        if heldByPeer[arrival.peer, default: 0] > perPeer, let key = drop(among: { $0.peer == arrival.peer }, requestIn)
        {
            dropped.append(key)
        }
        if held.count > max(room, 0), let key = drop(among: { _ in true }, requestIn) { dropped.append(key) }
        while silent > max(room - reserved, 0), let index = held.firstIndex(where: { !$0.arrival.requestIn }) {
            if requestIn(held[index].key) {
                held[index].arrival.requestIn = true
                silent -= 1
            } else {
                dropped.append(remove(at: index))
            }
        }
        return dropped
    }

    /// Drops the oldest of `belongs` without its request, unless `requestIn` finds it has it now (it is then marked so
    /// and the next looked at); else the oldest of them.
    private mutating func drop(among belongs: (Arrival) -> Bool, _ requestIn: (Int32) -> Bool) -> Int32? {
        while let index = held.firstIndex(where: { !$0.arrival.requestIn && belongs($0.arrival) }) {
            guard requestIn(held[index].key) else { return remove(at: index) }
            held[index].arrival.requestIn = true
            silent -= 1
        }
        return held.firstIndex { belongs($0.arrival) }.map { remove(at: $0) }
    }

    private mutating func remove(at index: Int) -> Int32 {
        let (key, arrival) = held.remove(at: index)
        if let count = heldByPeer[arrival.peer] { heldByPeer[arrival.peer] = count > 1 ? count - 1 : nil }
        if !arrival.requestIn { silent -= 1 }
        return key
    }
}
