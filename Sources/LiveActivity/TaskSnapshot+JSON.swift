import FoundationEssentials
import WireFormat

/// A snapshot's JSON written by hand: byte for byte what `LiveActivityJSON.makeEncoder()` writes for it (members
/// sorted by their UTF-8 bytes, `/` unescaped, a whole `Double` without its `.0`), which `TaskSnapshotJSONTests`
/// holds it to. Every change to a task is encoded before its Wake leaves (the agent's answer, the publication's
/// body of the task and `/api/live-activity/current`'s for each phone that shows it), and `JSONEncoder`, which
/// builds a box for every member first, was a fifth of the board's work between an agent's `PATCH` and its Wake.
extension TaskSnapshot {
    private static let members = JSONString.members(SnapshotKey.allCases)

    /// The members `/api/live-activity/current` writes beside the snapshot's, each with the index in `members` of
    /// the member it goes before (`members.count`: after the last).
    private static let currentMembers: [(before: Int, key: CurrentKey, prefix: [UInt8])] =
        JSONString.members(CurrentKey.allCases).map { key, prefix in
            let before = members.firstIndex { !$0.key.stringValue.utf8.lexicographicallyPrecedes(key.stringValue.utf8) }
            return (before ?? members.count, key, prefix)
        }

    /// Appends the snapshot's JSON object to `out`; with `others`, as `/api/live-activity/current` writes it, that
    /// member among the snapshot's. Throws an `EncodingError` for a progress that is not a finite number, which the
    /// encoder refuses too.
    package func appendJSON(to out: inout [UInt8], others: OtherTasks? = nil) throws(EncodingError) {
        out.append(UInt8(ascii: "{"))
        var first = true
        for index in 0...Self.members.count {
            if let others {
                for (before, key, prefix) in Self.currentMembers where before == index {
                    if !first { out.append(UInt8(ascii: ",")) }
                    first = false
                    out += prefix
                    switch key {
                    case .others: others.appendJSON(to: &out)
                    }
                }
            }
            guard index < Self.members.count else { break }
            let (key, prefix) = Self.members[index]
            if !first { out.append(UInt8(ascii: ",")) }
            first = false
            out += prefix
            switch key {
            case .requestID: JSONString.append(requestID, to: &out)
            case .phoneID: JSONString.append(phoneID, to: &out)
            case .status: JSONString.append(status.rawValue, to: &out)
            case .phase: JSONString.append(phase.rawValue, to: &out)
            case .taskTitle: JSONString.append(taskTitle, to: &out)
            case .currentStep: JSONString.append(currentStep, to: &out)
            case .currentAction: JSONString.append(currentAction, to: &out)
            case .currentTarget: JSONString.append(currentTarget, to: &out)
            case .currentApp: JSONString.append(currentApp, to: &out)
            case .lastToolName: JSONString.append(lastToolName, to: &out)
            case .lastError: JSONString.append(lastError, to: &out)
            case .toolStatus: JSONString.append(toolStatus, to: &out)
            case .toolStartedAt: Self.append(toolStartedAt, to: &out)
            case .locale: JSONString.append(locale, to: &out)
            case .progress:
                guard progress.isFinite else {
                    throw EncodingError.invalidValue(
                        progress,
                        EncodingError.Context(
                            codingPath: [key], debugDescription: "Unable to encode Double.\(progress) in JSON."))
                }
                // `Double.description` as the encoder writes it: `1` for 1.0, `1e-05`, `0.30000000000000004`.
                var text = progress.description
                if text.hasSuffix(".0") { text.removeLast(2) }
                out += text.utf8
            case .showsProgress: Self.append(showsProgress, to: &out)
            case .canStop: Self.append(canStop, to: &out)
            case .requiresApp: Self.append(requiresApp, to: &out)
            case .staleAfterSeconds: out += String(staleAfterSeconds).utf8
            case .abandonAfterSeconds: out += String(abandonAfterSeconds).utf8
            case .staleSince: Self.append(staleSince, to: &out)
            case .startedAt: Self.append(startedAt, to: &out)
            case .updatedAt: Self.append(updatedAt, to: &out)
            case .endedAt: Self.append(endedAt, to: &out)
            case .dismissAfterSeconds:
                if let dismissAfterSeconds { out += String(dismissAfterSeconds).utf8 } else { Self.appendNull(&out) }
            case .dismissedAt: Self.append(dismissedAt, to: &out)
            case .revision: out += String(revision).utf8
            case .answer:
                if let answer { answer.appendJSON(to: &out) } else { Self.appendNull(&out) }
            }
        }
        out.append(UInt8(ascii: "}"))
    }

    private static func append(_ date: Date?, to out: inout [UInt8]) {
        guard let date else { return appendNull(&out) }
        JSONString.append(Timestamp.format(date), to: &out)
    }

    private static func append(_ flag: Bool, to out: inout [UInt8]) {
        out += flag ? "true".utf8 : "false".utf8
    }

    private static func appendNull(_ out: inout [UInt8]) {
        out += "null".utf8
    }
}

extension TaskAnswer {
    private static let members = JSONString.members(AnswerKey.allCases)

    /// Appends the answer's JSON object to `out`, as the encoder writes it (`TaskSnapshot.appendJSON`).
    func appendJSON(to out: inout [UInt8]) {
        out.append(UInt8(ascii: "{"))
        for (index, (key, prefix)) in Self.members.enumerated() {
            if index > 0 { out.append(UInt8(ascii: ",")) }
            out += prefix
            switch key {
            case .answer: JSONString.append(answer.rawValue, to: &out)
            case .answerID: JSONString.append(answerID, to: &out)
            case .phoneID: JSONString.append(phoneID, to: &out)
            case .answeredAt: JSONString.append(Timestamp.format(answeredAt), to: &out)
            }
        }
        out.append(UInt8(ascii: "}"))
    }
}
