import FoundationEssentials

/// Remembers which task a start with an `Idempotency-Key` created, and a fingerprint of its body, so a
/// retry returns that task and a reuse of the key for another body is refused. A record lives exactly as
/// long as its task: the store has at most one per task, which bounds them by the task capacity.
struct IdempotencyRecord: Sendable, Hashable, Codable {
    var key: String
    var requestID: String
    var fingerprint: UInt64

    enum CodingKeys: String, CodingKey {
        case key
        case requestID = "request_id"
        case fingerprint
    }

    /// FNV-1a of the draft's canonical JSON: stable across processes (unlike `Hasher`), so it can be persisted.
    static func fingerprint(of draft: TaskDraft) -> UInt64 {
        let bytes = (try? LiveActivityJSON.makeEncoder().encode(draft)) ?? Data()
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes {
            hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01b3
        }
        return hash
    }

    /// Keys are visible ASCII, at most `TaskLimits.maxIdempotencyKeyLength` long.
    static func validate(key: String) throws(TaskValidationError) {
        let scalars = key.unicodeScalars
        guard !scalars.isEmpty, scalars.count <= TaskLimits.maxIdempotencyKeyLength,
            scalars.allSatisfy({ (0x21...0x7E).contains($0.value) })
        else {
            throw TaskValidationError(
                field: "Idempotency-Key",
                message: "must be 1 to \(TaskLimits.maxIdempotencyKeyLength) visible ASCII characters, "
                    + "got \(TaskValidationError.quoted(key))")
        }
    }
}
