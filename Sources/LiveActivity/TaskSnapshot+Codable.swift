import FoundationEssentials
import WireFormat

/// The JSON of docs/protocol.md §4.1: snake_case keys, dates as ISO-8601 UTC strings, `ended_at` always present
/// (`null` while the task runs), `tool_started_at` likewise (`null` while no tool line is set), `stale_since` likewise (`null` while the task has news), `answer` and
/// `dismissed_at` likewise (`null` until the person answers or dismisses). Decoding ignores
/// unknown keys, and takes the defaults for the tool line, locale, staleness, dismissal and answer members a store written before them lacks; it is for trusted input (the state file,
/// the board's own answers); agent input goes through `TaskDraft`/`TaskPatch`/`TaskEnd`, which validate.
/// The member names are `SnapshotKey`'s, which the phone's and aidenctl's `SnapshotView` read too.
extension TaskSnapshot: Codable {
    package init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: SnapshotKey.self)
        requestID = try container.decode(String.self, forKey: .requestID)
        phoneID = try container.decode(String.self, forKey: .phoneID)
        status = try container.decode(TaskStatus.self, forKey: .status)
        phase = try container.decode(TaskPhase.self, forKey: .phase)
        taskTitle = try container.decode(String.self, forKey: .taskTitle)
        currentStep = try container.decode(String.self, forKey: .currentStep)
        currentAction = try container.decode(String.self, forKey: .currentAction)
        currentTarget = try container.decode(String.self, forKey: .currentTarget)
        currentApp = try container.decode(String.self, forKey: .currentApp)
        lastToolName = try container.decode(String.self, forKey: .lastToolName)
        lastError = try container.decode(String.self, forKey: .lastError)
        // The tool line and the locale are absent from a store written before them.
        toolStatus = try container.decodeIfPresent(String.self, forKey: .toolStatus) ?? ""
        if container.contains(.toolStartedAt), try !container.decodeNil(forKey: .toolStartedAt) {
            toolStartedAt = try container.decodeTimestamp(forKey: .toolStartedAt)
        } else {
            toolStartedAt = nil
        }
        locale = try container.decodeIfPresent(String.self, forKey: .locale) ?? ""
        progress = try container.decode(Double.self, forKey: .progress)
        showsProgress = try container.decode(Bool.self, forKey: .showsProgress)
        canStop = try container.decode(Bool.self, forKey: .canStop)
        requiresApp = try container.decode(Bool.self, forKey: .requiresApp)
        staleAfterSeconds =
            try container.decodeIfPresent(Int.self, forKey: .staleAfterSeconds) ?? TaskLimits.defaultStaleAfterSeconds
        abandonAfterSeconds =
            try container.decodeIfPresent(Int.self, forKey: .abandonAfterSeconds)
            ?? TaskLimits.defaultAbandonAfterSeconds
        if container.contains(.staleSince), try !container.decodeNil(forKey: .staleSince) {
            staleSince = try container.decodeTimestamp(forKey: .staleSince)
        } else {
            staleSince = nil
        }
        startedAt = try container.decodeTimestamp(forKey: .startedAt)
        updatedAt = try container.decodeTimestamp(forKey: .updatedAt)
        endedAt = try container.decodeNil(forKey: .endedAt) ? nil : container.decodeTimestamp(forKey: .endedAt)
        dismissAfterSeconds = try container.decodeIfPresent(Int.self, forKey: .dismissAfterSeconds)
        if container.contains(.dismissedAt), try !container.decodeNil(forKey: .dismissedAt) {
            dismissedAt = try container.decodeTimestamp(forKey: .dismissedAt)
        } else {
            dismissedAt = nil
        }
        revision = try container.decode(UInt64.self, forKey: .revision)
        // Absent from a store written before the person could answer.
        answer = try container.decodeIfPresent(TaskAnswer.self, forKey: .answer)
    }

    /// Every key, in `SnapshotKey` order; the switch makes a new key a compile error until it is written.
    package func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: SnapshotKey.self)
        for key in SnapshotKey.allCases {
            switch key {
            case .requestID: try container.encode(requestID, forKey: key)
            case .phoneID: try container.encode(phoneID, forKey: key)
            case .status: try container.encode(status, forKey: key)
            case .phase: try container.encode(phase, forKey: key)
            case .taskTitle: try container.encode(taskTitle, forKey: key)
            case .currentStep: try container.encode(currentStep, forKey: key)
            case .currentAction: try container.encode(currentAction, forKey: key)
            case .currentTarget: try container.encode(currentTarget, forKey: key)
            case .currentApp: try container.encode(currentApp, forKey: key)
            case .lastToolName: try container.encode(lastToolName, forKey: key)
            case .lastError: try container.encode(lastError, forKey: key)
            case .toolStatus: try container.encode(toolStatus, forKey: key)
            case .toolStartedAt:
                if let toolStartedAt {
                    try container.encode(Timestamp.format(toolStartedAt), forKey: key)
                } else {
                    try container.encodeNil(forKey: key)
                }
            case .locale: try container.encode(locale, forKey: key)
            case .progress: try container.encode(progress, forKey: key)
            case .showsProgress: try container.encode(showsProgress, forKey: key)
            case .canStop: try container.encode(canStop, forKey: key)
            case .requiresApp: try container.encode(requiresApp, forKey: key)
            case .staleAfterSeconds: try container.encode(staleAfterSeconds, forKey: key)
            case .abandonAfterSeconds: try container.encode(abandonAfterSeconds, forKey: key)
            case .staleSince:
                if let staleSince {
                    try container.encode(Timestamp.format(staleSince), forKey: key)
                } else {
                    try container.encodeNil(forKey: key)
                }
            case .startedAt: try container.encode(Timestamp.format(startedAt), forKey: key)
            case .updatedAt: try container.encode(Timestamp.format(updatedAt), forKey: key)
            case .endedAt:
                if let endedAt {
                    try container.encode(Timestamp.format(endedAt), forKey: key)
                } else {
                    try container.encodeNil(forKey: key)
                }
            case .dismissAfterSeconds:
                if let dismissAfterSeconds {
                    try container.encode(dismissAfterSeconds, forKey: key)
                } else {
                    try container.encodeNil(forKey: key)
                }
            case .dismissedAt:
                if let dismissedAt {
                    try container.encode(Timestamp.format(dismissedAt), forKey: key)
                } else {
                    try container.encodeNil(forKey: key)
                }
            case .revision: try container.encode(revision, forKey: key)
            case .answer:
                if let answer {
                    try container.encode(answer, forKey: key)
                } else {
                    try container.encodeNil(forKey: key)
                }
            }
        }
    }

    /// Bytes of this snapshot as JSON with `/` escaped as `\/` (JSONEncoder's default and the longer form),
    /// so the 4 KiB bound holds whichever form the HTTP layer writes. `Int.max` if it cannot be encoded.
    package var encodedByteCount: Int {
        (try? JSONEncoder().encode(self).count) ?? Int.max
    }

    /// At least `encodedByteCount`, counted without an encoder: every text as if each of its UTF-8 bytes took the
    /// six of `\u001f`, the longest escape (`/` takes two, a line feed two, others one), every number at its
    /// longest. An agent's write is checked against the limit with this first (`TaskStore.checkEncodedSize`), and
    /// only a snapshot it cannot clear is encoded to count: `JSONEncoder` was a seventh of the board's work for a
    /// write, before the Wake. The switch makes a new key a compile error until it is counted.
    package var encodedByteCountBound: Int {
        var bytes = 2  // {}
        for key in SnapshotKey.allCases {
            bytes += key.stringValue.utf8.count + 4  // "key": and a comma
            switch key {
            case .requestID: bytes += Self.textBound(requestID)
            case .phoneID: bytes += Self.textBound(phoneID)
            case .status: bytes += Self.textBound(status.rawValue)
            case .phase: bytes += Self.textBound(phase.rawValue)
            case .taskTitle: bytes += Self.textBound(taskTitle)
            case .currentStep: bytes += Self.textBound(currentStep)
            case .currentAction: bytes += Self.textBound(currentAction)
            case .currentTarget: bytes += Self.textBound(currentTarget)
            case .currentApp: bytes += Self.textBound(currentApp)
            case .lastToolName: bytes += Self.textBound(lastToolName)
            case .lastError: bytes += Self.textBound(lastError)
            case .toolStatus: bytes += Self.textBound(toolStatus)
            case .toolStartedAt: bytes += Self.timestampBound(toolStartedAt)
            case .locale: bytes += Self.textBound(locale)
            case .progress:
                // JSONEncoder refuses what is not finite: so must the bound (`encodedByteCount` is `Int.max`).
                guard progress.isFinite else { return .max }
                bytes += Self.numberBound
            case .showsProgress, .canStop, .requiresApp: bytes += 5  // false
            case .staleAfterSeconds, .abandonAfterSeconds, .dismissAfterSeconds, .revision: bytes += Self.numberBound
            case .staleSince: bytes += Self.timestampBound(staleSince)
            case .startedAt: bytes += Self.timestampBound(startedAt)
            case .updatedAt: bytes += Self.timestampBound(updatedAt)
            case .endedAt: bytes += Self.timestampBound(endedAt)
            case .dismissedAt: bytes += Self.timestampBound(dismissedAt)
            case .answer: bytes += answer.map(Self.answerBound) ?? 4
            }
        }
        return bytes
    }

    /// Longer than any number JSONEncoder writes: `-9223372036854775808`, `18446744073709551615`,
    /// `-2.2250738585072014e-308`, `null`.
    private static let numberBound = 32

    private static func textBound(_ text: String) -> Int { 2 + 6 * text.utf8.count }

    /// A timestamp is plain ASCII (`Timestamp.format`): its quotes and characters exactly, or `null`.
    private static func timestampBound(_ date: Date?) -> Int { date.map { 2 + Timestamp.format($0).utf8.count } ?? 4 }

    private static func answerBound(_ answer: TaskAnswer) -> Int {
        var bytes = 2
        for key in AnswerKey.allCases {
            bytes += key.stringValue.utf8.count + 4
            switch key {
            case .answer: bytes += textBound(answer.answer.rawValue)
            case .answerID: bytes += textBound(answer.answerID)
            case .phoneID: bytes += textBound(answer.phoneID)
            case .answeredAt: bytes += timestampBound(answer.answeredAt)
            }
        }
        return bytes
    }
}

extension KeyedDecodingContainer {
    func decodeTimestamp(forKey key: Key) throws -> Date {
        let text = try decode(String.self, forKey: key)
        guard let date = Timestamp.parse(text) else {
            throw DecodingError.dataCorruptedError(
                forKey: key, in: self, debugDescription: "expected an ISO-8601 UTC timestamp, got \"\(text)\"")
        }
        return date
    }
}

/// How this module's types are meant to be written: keys sorted (stable bytes, so one encoding per
/// revision can be cached and compared) and `/` unescaped.
package enum LiveActivityJSON {
    package static func makeEncoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }
}
