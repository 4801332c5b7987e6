import FoundationEssentials
import Logging
import WireFormat

/// Encodes `PhoneEvent`s as one JSON object per line, keys sorted, `/` unescaped, so scripts can
/// rely on the shape and tests can compare golden lines. Every object has `event` and `at`. Every
/// control, separator and format character (`ControlCharacter`: DEL, C1, bidi controls, … as well as the
/// C0 ones JSON requires) is written as a `\u` escape: a script reads the board's text as sent, and the
/// line still cannot drive the terminal it is printed on.
package struct PhoneEventEncoder: Sendable {
    package init() {}

    /// The JSON line for `event` emitted at `date` (wall clock), without the trailing newline.
    package func line(for event: PhoneEvent, at date: Date) -> String {
        var object = fields(for: event)
        object["at"] = .string(UTCTimestamp.format(date))
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        guard let data = try? encoder.encode(object) else {
            // Unreachable with JSONValue (non-finite numbers become null); still never print a broken line.
            return #"{"event":"error","message":"could not encode an event"}"#
        }
        return Self.escapingControlCharacters(String(decoding: data, as: UTF8.self))
    }

    /// `json` with each `ControlCharacter` as `\uXXXX` (a surrogate pair above the BMP). Outside strings
    /// JSON holds only ASCII punctuation, digits and letters, so each one found is inside a string and the
    /// escape means the same character to every JSON reader.
    static func escapingControlCharacters(_ json: String) -> String {
        guard json.unicodeScalars.contains(where: { ControlCharacter($0) != nil }) else { return json }
        var escaped = String.UnicodeScalarView()
        for scalar in json.unicodeScalars {
            guard ControlCharacter(scalar) != nil else {
                escaped.append(scalar)
                continue
            }
            for unit in String(scalar).utf16 {
                let hex = String(unit, radix: 16)
                escaped.append(contentsOf: ("\\u" + String(repeating: "0", count: 4 - hex.count) + hex).unicodeScalars)
            }
        }
        return String(escaped)
    }

    private func fields(for event: PhoneEvent) -> [String: JSONValue] {
        switch event {
        case .card(let card): Self.fields(card)
        case .alert(let alert): Self.fields(alert)
        case .connection(let link): Self.fields(link)
        case .wake(let notice): Self.fields(notice)
        case .error(let kind, let message):
            ["event": "error", "message": .string(message), "kind": kind.map(JSONValue.string)]
                .compactMapValues { $0 }
        case .answered(let outcome): Self.fields(outcome)
        }
    }

    /// A card's task members carry the snapshot's own names (`SnapshotKey`).
    private static func fields(_ card: Card) -> [String: JSONValue] {
        var object: [String: JSONValue?] = ["event": "card", "state": .string(card.state.rawValue)]
        if let snapshot = card.snapshot {
            func set(_ key: SnapshotKey, _ value: JSONValue?) { object[key.stringValue] = value }
            set(.requestID, snapshot.requestID.map(JSONValue.string))
            set(.status, snapshot.status.map { .string($0.rawValue) })
            set(.phase, snapshot.phase.map { .string($0.rawValue) })
            set(.taskTitle, snapshot.taskTitle.map(JSONValue.string))
            set(.currentStep, snapshot.currentStep.map(JSONValue.string))
            set(.currentAction, snapshot.currentAction.map(JSONValue.string))
            set(.currentTarget, snapshot.currentTarget.map(JSONValue.string))
            set(.currentApp, snapshot.currentApp.map(JSONValue.string))
            set(.lastError, snapshot.lastError.map(JSONValue.string))
            set(.progress, snapshot.progress.map { JSONValue($0) })
            set(.showsProgress, snapshot.showsProgress.map(JSONValue.bool))
            set(.canStop, snapshot.canStop.map(JSONValue.bool))
            set(.revision, snapshot.revision.map { JSONValue($0) })
            set(.updatedAt, snapshot.updatedAt.map(JSONValue.string))
            set(.endedAt, snapshot.endedAt.map(JSONValue.string))
        }
        if let recorded = card.recordedAnswer {
            object["answer"] = .string(recorded.name)
        }
        object["dismissed_at"] = card.snapshot?.dismissedAt.map(JSONValue.string)
        if let others = card.others {
            object["others"] = .object([
                "active": JSONValue(UInt64(clamping: others.active)),
                "waiting": JSONValue(UInt64(clamping: others.waiting)),
            ])
        }
        if let problem = card.problem {
            object["problem"] = .string(problem.description)
            object["problem_kind"] = .string(problem.kind)
        }
        return object.compactMapValues { $0 }
    }

    private static func fields(_ alert: Alert) -> [String: JSONValue] {
        let object: [String: JSONValue?] = [
            "event": "alert",
            "transition": .string(alert.transition.rawValue),
            "request_id": alert.requestID.map(JSONValue.string),
            "connection_id": alert.connectionID.map(JSONValue.string),
            "epoch": alert.epoch.map { JSONValue(UInt64($0)) },
            "event_id": alert.eventID.map { JSONValue($0) },
            "board_at": alert.boardTime.map(JSONValue.string),
            "title": alert.title.map(JSONValue.string),
            "step": alert.step.map(JSONValue.string),
            "action": alert.action.map(JSONValue.string),
            "error": alert.error.map(JSONValue.string),
        ]
        return object.compactMapValues { $0 }
    }

    /// `{"event":"answer","answer":"stop","answer_id":…,"request_id":…,"ok":true,"message":…}`, with
    /// `error_code` when the board named one.
    private static func fields(_ outcome: AnswerOutcome) -> [String: JSONValue] {
        var object: [String: JSONValue?] = [
            "event": "answer",
            "answer": .string(outcome.answer.rawValue),
            "answer_id": .string(outcome.answerID),
            "request_id": .string(outcome.requestID),
            "ok": .bool(outcome.succeeded),
            "message": .string(outcome.line),
        ]
        switch outcome.result {
        case let .recorded(receipt):
            object["answered_at"] = receipt.answer?.answeredAt.map(JSONValue.string)
        case let .refused(problem, code):
            object["error_code"] = code.map(JSONValue.string)
            object["problem_kind"] = .string(problem.kind)
        }
        return object.compactMapValues { $0 }
    }

    private static func fields(_ link: LinkState) -> [String: JSONValue] {
        let object: [String: JSONValue?] = [
            "event": "connection",
            "usb": .string(link.usb.rawValue),
            "wake": .string(link.wake.rawValue),
            "wake_detail": link.wakeDetail.map(JSONValue.string),
            "connection_id": link.connectionID.map(JSONValue.string),
        ]
        return object.compactMapValues { $0 }
    }

    private static func fields(_ notice: WakeNotice) -> [String: JSONValue] {
        var object: [String: JSONValue] = [
            "event": "wake",
            "version": JSONValue(UInt64(notice.version)),
            "reason": .string(notice.reason),
            "epoch": JSONValue(UInt64(notice.epoch)),
            "seq": JSONValue(notice.sequence),
        ]
        switch notice.verdict {
        case .newEpoch:
            object["verdict"] = "new_epoch"
        case .next(let missed):
            object["verdict"] = "new"
            object["missed"] = JSONValue(missed)
        case .restarted(let previous):
            object["verdict"] = "restarted"
            object["previous_seq"] = JSONValue(previous)
        case .repeated:
            object["verdict"] = "repeated"
        case .duplicate:
            object["verdict"] = "duplicate"
        }
        return object
    }
}
