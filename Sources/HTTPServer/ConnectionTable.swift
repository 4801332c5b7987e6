/// The open connections of one listener, and how long each has waited for a complete request: libmicrohttpd's
/// timeout only measures inactivity, so a client sending one byte every few seconds would keep its slot forever.
/// Here a connection has `deadline` from its opening, and again from the end of each answer, to deliver a whole
/// request (line, headers and body); the server shuts down the ones `overdue` returns. A request being handled
/// (the agent's write waiting for the disk) or an answer being sent is not waiting, so neither is ever cut.
///
/// Also counts the open connections of each Unix socket peer (`peerKey(_:)`), which libmicrohttpd's per-IP limit
/// cannot.
/// Pure, with time passed in: the shell keeps one under a lock, fed from libmicrohttpd's callbacks.
struct ConnectionTable: Sendable {
    struct Entry: Sendable, Equatable {
        let descriptor: Int32
        /// The Unix socket peer whose connection counts against its limit (`peerKey(_:)`); nil on TCP.
        var peer: UInt64?
        /// Since when it has waited for a complete request; nil while a request is handled or answered.
        var waitingSince: Duration?
        /// Shut down already (overdue or refused): not again.
        var cut = false
    }

    private(set) var entries: [UInt: Entry] = [:]
    private var openByPeer: [UInt64: Int] = [:]

    /// Who a Unix socket peer is for its limit: its user, as `SO_PEERCRED` names it. Not its process: one agent
    /// runs many (`aidenctl task run`, its heartbeats, a shell loop), and counted per process those could take
    /// every slot of the listener from every other agent. A service in a user namespace (`PrivateUsers=`) sees
    /// every user it does not map as the one overflow uid (65534): they then share one count, which is why
    /// aiden-board.service does not set it (docs/security.md).
    static func peerKey(uid: UInt32) -> UInt64 { UInt64(uid) }

    /// A connection opened at `now`; returns how many connections its peer now has open, this one included.
    @discardableResult
    mutating func open(_ id: UInt, descriptor: Int32, peer: UInt64? = nil, at now: Duration) -> Int {
        entries[id] = Entry(descriptor: descriptor, peer: peer, waitingSince: now)
        guard let peer else { return 1 }
        openByPeer[peer, default: 0] += 1
        return openByPeer[peer, default: 0]
    }

    /// The connection is refused: it no longer counts against its peer, and is not cut again. Returns its descriptor.
    mutating func refuse(_ id: UInt) -> Int32? {
        guard var entry = entries[id] else { return nil }
        release(entry.peer)
        entry.peer = nil
        entry.cut = true
        entry.waitingSince = nil
        entries[id] = entry
        return entry.descriptor
    }

    /// A whole request is in (or was answered before its body): the handler has it, the clock stops.
    mutating func requestArrived(_ id: UInt) {
        entries[id]?.waitingSince = nil
    }

    /// The answer went out (or the request ended otherwise): the next request's clock starts.
    mutating func answered(_ id: UInt, at now: Duration) {
        guard entries[id]?.cut == false else { return }
        entries[id]?.waitingSince = now
    }

    mutating func close(_ id: UInt) {
        guard let entry = entries.removeValue(forKey: id) else { return }
        release(entry.peer)
    }

    /// The descriptors of connections that have waited longer than `deadline` at `now`, each returned once.
    mutating func overdue(at now: Duration, deadline: Duration) -> [Int32] {
        var late: [Int32] = []
        for (id, entry) in entries {
            guard !entry.cut, let since = entry.waitingSince, now - since > deadline else { continue }
            entries[id]?.cut = true
            late.append(entry.descriptor)
        }
        return late
    }

    var count: Int { entries.count }

    /// When the next connection becomes overdue (`overdue` returns it just after): the earliest wait plus
    /// `deadline`; nil when none waits (none open, or each being handled), so the shell arms no timer.
    func nextDeadline(_ deadline: Duration) -> Duration? {
        entries.values.lazy.filter { !$0.cut }.compactMap(\.waitingSince).min().map { $0 + deadline }
    }

    private mutating func release(_ peer: UInt64?) {
        guard let peer, let open = openByPeer[peer] else { return }
        openByPeer[peer] = open > 1 ? open - 1 : nil
    }
}
