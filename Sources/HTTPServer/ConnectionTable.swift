import NetworkAddress

/// The open connections of one listener, and how long each has waited for a complete request: a timeout that only
/// measures inactivity would let a client sending one byte every few seconds keep its slot forever. Here a connection has `deadline` from its opening, and again from the end of each answer, to deliver a whole
/// request (line, headers and body), and `headerDeadline` from its opening to deliver its first line and headers;
/// the server shuts down the ones `overdue` returns. A request being handled (the agent's write waiting for the
/// disk) or an answer being sent is not waiting, so neither is ever cut.
///
/// Also the listener's admission (`makeRoom`): each peer's connections and all of them together have a budget,
/// and refused peers (answered 403 on their headers) have their own, outside the one the phone draws on. A
/// connection over a budget does not wait for a slot: it takes the one of the connection that has waited longest
/// without a complete request (`Peer.address`; on a Unix socket the newest is refused instead, `refuse`).
/// Pure, with time passed in: each `ServerLoop` keeps one, fed as its connections open, read, answer and close.
struct ConnectionTable: Sendable {
    /// Who a connection counts against: a TCP peer by its address, a Unix socket peer by `peerKey(uid:)`.
    enum Peer: Hashable, Sendable {
        case address(IPAddress)
        case unix(UInt64)
    }

    /// How many connections may be open at once (`HTTPServerLimits`).
    struct Budget: Sendable, Equatable {
        /// Connections served, per peer.
        var perPeer: Int
        /// Connections served, all peers together.
        var served: Int
        /// Connections of refused peers, all together (each answered 403 and closed).
        var refused: Int
    }

    struct Entry: Sendable, Equatable {
        let descriptor: Int32
        /// Who it counts against (nil: nobody; a refused connection on a Unix socket).
        var peer: Peer?
        /// Answered 403 when its headers are in: counted in `Budget.refused`, never in a peer's.
        let refused: Bool
        let openedAt: Duration
        /// Since when it has waited for a complete request; nil while a request is handled or answered.
        var waitingSince: Duration?
        /// The first request's line and headers are in: the header deadline no longer applies.
        var headersIn = false
        /// Shut down already (overdue, evicted or refused): not again, and not counted in a budget.
        var cut = false
        /// Its request's line and headers were in its socket buffer when it opened, and the loop has not read them
        /// yet: taken for another only when every other waiting connection of its class has its request in too.
        var requestUnread = false
    }

    private(set) var entries: [UInt: Entry] = [:]
    private var openByPeer: [Peer: Int] = [:]

    /// Who a Unix socket peer is for its limit: its user, as `SO_PEERCRED` names it. Not its process: one agent
    /// runs many (`aidenctl task run`, its heartbeats, a shell loop), and counted per process those could take
    /// every slot of the listener from every other agent. A service in a user namespace (`PrivateUsers=`) sees
    /// every user it does not map as the one overflow uid (65534): they then share one count, which is why
    /// aiden-board.service does not set it (docs/security.md).
    static func peerKey(uid: UInt32) -> Peer { .unix(UInt64(uid)) }

    /// A connection opened at `now` (`requestIn`: its request's line and headers were in already); returns how many
    /// connections its peer now has open, this one included.
    @discardableResult
    mutating func open(
        _ id: UInt, descriptor: Int32, peer: Peer? = nil, refused: Bool = false, requestIn: Bool = false,
        at now: Duration
    ) -> Int {
        let counted = refused ? nil : peer
        entries[id] = Entry(
            descriptor: descriptor, peer: counted, refused: refused, openedAt: now, waitingSince: now,
            requestUnread: requestIn)
        guard let counted else { return 1 }
        openByPeer[counted, default: 0] += 1
        return openByPeer[counted, default: 0]
    }

    /// Makes room for the connection `id` just opened, within `budget`: when its class (refused, or its peer's, or
    /// all served ones) is over, the connection of that class that has waited longest without a complete request
    /// is evicted; when none is waiting (all are being answered), `id` itself is. Returns the descriptors to shut
    /// down, each cut once. Evicting the one that waited longest, not the newest, is what keeps a peer that holds
    /// its budget open from locking anyone out: a new connection always gets in. One whose request came with it, as
    /// the phone's does, goes after every waiting one without: however many a peer opens before the loop reads
    /// it, a connection that holds a slot by saying nothing or trickling cannot take its place (docs/security.md).
    mutating func makeRoom(for id: UInt, within budget: Budget) -> [Int32] {
        guard let new = entries[id], !new.cut else { return [] }
        var cut: [Int32] = []
        func evict(among belongs: (Entry) -> Bool, over limit: Int) {
            let live = entries.filter { !$0.value.cut && belongs($0.value) }
            guard live.count > limit else { return }
            let waiting = live.filter { $0.key != id && $0.value.waitingSince != nil }
            let victim =
                waiting.min {
                    ($0.value.requestUnread ? 1 : 0, $0.value.waitingSince!, $0.key)
                        < ($1.value.requestUnread ? 1 : 0, $1.value.waitingSince!, $1.key)
                }?.key ?? id
            if let descriptor = refuse(victim) { cut.append(descriptor) }
        }
        if new.refused {
            evict(among: { $0.refused }, over: budget.refused)
            return cut
        }
        if let peer = new.peer { evict(among: { $0.peer == peer }, over: budget.perPeer) }
        if entries[id]?.cut == false { evict(among: { !$0.refused }, over: budget.served) }
        return cut
    }

    /// The connection is cut (refused, evicted; the loop closes it): it no longer counts against its peer, and is not cut
    /// again. Returns its descriptor (nil when unknown or cut already).
    mutating func refuse(_ id: UInt) -> Int32? {
        guard var entry = entries[id], !entry.cut else { return nil }
        release(entry.peer)
        entry.peer = nil
        entry.cut = true
        entry.waitingSince = nil
        entries[id] = entry
        return entry.descriptor
    }

    /// The request's line and headers are in (its body may follow): the header deadline is met.
    mutating func headersArrived(_ id: UInt) {
        update(id) { entry in
            entry.headersIn = true
            entry.requestUnread = false
        }
    }

    /// A whole request is in (or was answered before its body): the handler has it, the clock stops.
    mutating func requestArrived(_ id: UInt) {
        update(id) { entry in
            entry.headersIn = true
            entry.requestUnread = false
            entry.waitingSince = nil
        }
    }

    /// The answer went out (or the request ended otherwise): the next request's clock starts.
    mutating func answered(_ id: UInt, at now: Duration) {
        update(id) { entry in
            if !entry.cut { entry.waitingSince = now }
        }
    }

    /// Changes a connection's entry in place, found once: the loop does this for every request.
    private mutating func update(_ id: UInt, _ change: (inout Entry) -> Void) {
        guard let index = entries.index(forKey: id) else { return }
        change(&entries.values[index])
    }

    mutating func close(_ id: UInt) {
        guard let entry = entries.removeValue(forKey: id) else { return }
        release(entry.peer)
    }

    /// The descriptors of connections that have waited longer than `deadline` at `now`, or that opened longer than
    /// `headerDeadline` ago without their first line and headers, each returned once.
    mutating func overdue(at now: Duration, deadline: Duration, headerDeadline: Duration? = nil) -> [Int32] {
        var late: [Int32] = []
        for (id, entry) in entries {
            guard !entry.cut, let since = entry.waitingSince else { continue }
            let headersLate = headerDeadline.map { !entry.headersIn && now - entry.openedAt > $0 } ?? false
            guard now - since > deadline || headersLate else { continue }
            entries[id]?.cut = true
            late.append(entry.descriptor)
        }
        return late
    }

    /// The connections open (the loop closes a cut one at once, `close`).
    var count: Int { entries.count }

    /// When the next connection becomes overdue (`overdue` returns it just after): the earliest wait plus
    /// `deadline`, or a connection's opening plus `headerDeadline` while its headers are not in; nil when none
    /// waits (none open, or each being handled), so the shell arms no timer.
    func nextDeadline(_ deadline: Duration, headerDeadline: Duration? = nil) -> Duration? {
        entries.values.lazy.filter { !$0.cut }.compactMap { entry -> Duration? in
            guard let since = entry.waitingSince else { return nil }
            guard let headerDeadline, !entry.headersIn else { return since + deadline }
            return min(since + deadline, entry.openedAt + headerDeadline)
        }.min()
    }

    private mutating func release(_ peer: Peer?) {
        guard let peer, let open = openByPeer[peer] else { return }
        openByPeer[peer] = open > 1 ? open - 1 : nil
    }
}
