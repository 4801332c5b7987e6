/// What must hold after every change (the shape of swift-collections' `_checkInvariants`): asserted after each
/// mutation in debug builds, and checked when a ring is loaded from disk.
extension TransitionLog {
    /// Human-readable descriptions of broken invariants; empty when the ring is sound.
    func consistencyProblems() -> [String] {
        var problems: [String] = []
        if events.count > capacity {
            problems.append("\(events.count) events exceed the capacity \(capacity)")
        }
        if events.isEmpty != (lastID == 0) {
            problems.append("last_id \(lastID) does not match \(events.count) kept events")
        }
        if let last = events.last, last.id != lastID {
            problems.append("newest event id \(last.id) is not last_id \(lastID)")
        }
        for (earlier, later) in zip(events, events.dropFirst()) where later.id != earlier.id + 1 {
            problems.append("event ids \(earlier.id) and \(later.id) are not consecutive")
        }
        return problems
    }

    #if DEBUG
    func checkInvariants() {
        let problems = consistencyProblems()
        assert(problems.isEmpty, "TransitionLog invariants broken: \(problems.joined(separator: "; "))")
    }
    #else
    @inline(__always)
    func checkInvariants() {}
    #endif
}
