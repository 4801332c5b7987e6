import FoundationEssentials

/// Remembers which write an `Idempotency-Key` was used for (a start, an update or an end of one task) and a
/// fingerprint of its body, so a retry returns that task as it now is instead of writing again, and a reuse
/// of the key for any other request is refused. The person's answers from the phone are kept the same way,
/// under their `answer_id` (`answerKey(_:)`, a name no agent key can have), with the answer the first press was
/// answered with, so a retry is answered alike.
///
/// A record lives at most as long as its task: a task keeps the record of its start, of its end, of its
/// last `TaskLimits.updateRecordsPerTask` updates (those only while it runs) and of its last
/// `TaskLimits.answerRecordsPerTask` answers, which bounds them by the task capacity.
struct IdempotencyRecord: Sendable, Hashable, Codable {
    /// The write a key was used for.
    enum Operation: String, Sendable, Hashable, Codable {
        case start
        case update
        case end
        /// An answer of the person's (`TaskStore.answer`), keyed by `answerKey(_:)`.
        case answer

        /// How a conflict message names it: "the start of task …".
        var noun: String {
            switch self {
            case .start: "the start"
            case .update: "an update"
            case .end: "the end"
            case .answer: "an answer"
            }
        }
    }

    var key: String
    var operation: Operation
    var requestID: String
    var fingerprint: UInt64
    /// The order records were made in, so a task's oldest update record is the one dropped.
    var sequence: UInt64
    /// For an `.answer`: the answer the request was answered with (the one it recorded, or the stop or
    /// dismissal already recorded), so a retry gets the same.
    var answer: TaskAnswer?

    init(
        key: String, operation: Operation = .start, requestID: String, fingerprint: UInt64, sequence: UInt64 = 0,
        answer: TaskAnswer? = nil
    ) {
        self.key = key
        self.operation = operation
        self.requestID = requestID
        self.fingerprint = fingerprint
        self.sequence = sequence
        self.answer = answer
    }

    enum CodingKeys: String, CodingKey {
        case key
        case operation
        case requestID = "request_id"
        case fingerprint
        case sequence
        case answer
    }

    /// The record key of the answer `answerID`: a space cannot be in an `Idempotency-Key` (visible ASCII) nor in
    /// an `answer_id` (`IdentifierRule`), so an agent's key and a phone's answer id never meet.
    static func answerKey(_ answerID: String) -> String {
        "answer " + answerID
    }

    /// Records written before updates and ends had keys hold only starts: `operation` and `sequence` default.
    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        key = try container.decode(String.self, forKey: .key)
        operation = try container.decodeIfPresent(Operation.self, forKey: .operation) ?? .start
        requestID = try container.decode(String.self, forKey: .requestID)
        fingerprint = try container.decode(UInt64.self, forKey: .fingerprint)
        sequence = try container.decodeIfPresent(UInt64.self, forKey: .sequence) ?? 0
        answer = try container.decodeIfPresent(TaskAnswer.self, forKey: .answer)
    }

    /// Whether `other` (a new request under the same key) is the request this record was made for.
    func matches(_ operation: Operation, requestID: String?, fingerprint: UInt64) -> Bool {
        self.operation == operation && self.fingerprint == fingerprint
            && (requestID.map { $0 == self.requestID } ?? true)
    }

    /// The refusal of this record's key reused for another request, `operation`.
    func conflict(reusedFor operation: Operation) -> TaskStoreError {
        let task = TaskValidationError.quoted(requestID)
        if operation == .answer || self.operation == .answer {
            let id = TaskValidationError.quoted(String(key.dropFirst(Self.answerKey("").count)))
            return .conflict(
                "answer_id \(id) was already used for another answer (task \(task)); use a new id for each press")
        }
        let key = TaskValidationError.quoted(key)
        guard operation == self.operation else {
            return .conflict(
                "Idempotency-Key \(key) was already used for \(self.operation.noun) of task \(task); "
                    + "use a new key for each write")
        }
        return .conflict("Idempotency-Key \(key) was already used for a different \(operation.rawValue) (task \(task))")
    }

    /// FNV-1a of the body's canonical JSON: stable across processes (unlike `Hasher`), so it can be persisted.
    /// A start's fingerprint is that of its draft alone, as stored by earlier versions.
    static func fingerprint(of body: some Encodable) -> UInt64 {
        let bytes = (try? LiveActivityJSON.makeEncoder().encode(body)) ?? Data()
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
