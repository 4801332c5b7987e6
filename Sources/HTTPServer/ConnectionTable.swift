/// The open connections of one listener, and how long each has waited for a complete request: libmicrohttpd's
/// timeout only measures inactivity, so a client sending one byte every few seconds would keep its slot forever.
/// Here a connection has `deadline` from its opening, and again from the end of each answer, to deliver a whole
/// request (line, headers and body); the server shuts down the ones `overdue` returns. A request being handled
/// (the agent's write waiting for the disk) or an answer being sent is not waiting, so neither is ever cut.
///
/// Also counts the open connections of each Unix socket peer (by uid), which libmicrohttpd's per-IP limit cannot.
/// Pure, with time passed in: the shell keeps one under a lock, fed from libmicrohttpd's callbacks.
struct ConnectionTable: Sendable {
    struct Entry: Sendable, Equatable {
        let descriptor: Int32
        /// The uid of a Unix socket peer whose connection counts against its limit; nil on TCP.
        var uid: UInt32?
        /// Since when it has waited for a complete request; nil while a request is handled or answered.
        var waitingSince: Duration?
        /// Shut down already (overdue or refused): not again.
        var cut = false
    }

    private(set) var entries: [UInt: Entry] = [:]
    private var openByUID: [UInt32: Int] = [:]

    /// A connection opened at `now`; returns how many connections its peer (`uid`) now has open, this one included.
    @discardableResult
    mutating func open(_ id: UInt, descriptor: Int32, uid: UInt32? = nil, at now: Duration) -> Int {
        entries[id] = Entry(descriptor: descriptor, uid: uid, waitingSince: now)
        guard let uid else { return 1 }
        openByUID[uid, default: 0] += 1
        return openByUID[uid, default: 0]
    }

    /// The connection is refused: it no longer counts against its peer, and is not cut again. Returns its descriptor.
    mutating func refuse(_ id: UInt) -> Int32? {
        guard var entry = entries[id] else { return nil }
        release(entry.uid)
        entry.uid = nil
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
        release(entry.uid)
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

    private mutating func release(_ uid: UInt32?) {
        guard let uid, let open = openByUID[uid] else { return }
        openByUID[uid] = open > 1 ? open - 1 : nil
    }
}
