import Glibc
import Synchronization

/// The verdicts of checks that depend on nothing but some bytes (an answer read as JSON, a request body through
/// its decoder and back), kept across inputs: libFuzzer's inputs are mostly their parents with one change, so the
/// same answers and bodies come back run after run, and reading them again gives the same verdict (the decoders
/// are pure). A verdict is returned only for bytes equal to those it was computed from (compared, not hashed).
///
/// The storage is allocated once, on first use, and overwritten in place: an input that allocated more than it
/// freed makes libFuzzer run it again and scan the heap for leaks, so a cache that grew would cost more than it
/// saves. Bytes longer than a slot are not kept. Thread-safe, for the corpus tests that run harnesses side by side.
package final class VerdictCache<Verdict: BitwiseCopyable & Sendable>: Sendable {
    private struct Slots {
        var bytes: [UInt8]
        var lengths: [Int]
        var verdicts: [Verdict?]
    }

    private let slotCount: Int
    private let slotSize: Int
    private let slots: Mutex<Slots>

    package init(slots slotCount: Int, bytesEach slotSize: Int) {
        self.slotCount = slotCount
        self.slotSize = slotSize
        slots = Mutex(
            Slots(
                bytes: Array(repeating: 0, count: slotCount * slotSize),
                lengths: Array(repeating: -1, count: slotCount), verdicts: Array(repeating: nil, count: slotCount)))
    }

    /// The verdict for `key`: the one computed for equal bytes before, else `compute()`'s, then kept.
    @discardableResult
    package func verdict(
        for key: [UInt8], _ compute: () throws(InvariantViolation) -> Verdict
    ) throws(InvariantViolation)
        -> Verdict
    {
        guard key.count <= slotSize else { return try compute() }
        var hasher = Hasher()
        key.withUnsafeBytes { hasher.combine(bytes: $0) }
        let slot = Int(UInt(bitPattern: hasher.finalize()) % UInt(slotCount))
        let start = slot * slotSize
        let known = slots.withLock { slots -> Verdict? in
            guard slots.lengths[slot] == key.count, let verdict = slots.verdicts[slot] else { return nil }
            guard !key.isEmpty else { return verdict }
            let equal = slots.bytes.withUnsafeBytes { stored in
                key.withUnsafeBytes { memcmp(stored.baseAddress! + start, $0.baseAddress!, key.count) == 0 }
            }
            return equal ? verdict : nil
        }
        if let known { return known }
        let verdict = try compute()
        slots.withLock { slots in
            if !key.isEmpty {
                slots.bytes.withUnsafeMutableBytes { stored in
                    key.withUnsafeBytes {
                        (stored.baseAddress! + start).copyMemory(from: $0.baseAddress!, byteCount: key.count)
                    }
                }
            }
            slots.lengths[slot] = key.count
            slots.verdicts[slot] = verdict
        }
        return verdict
    }
}
