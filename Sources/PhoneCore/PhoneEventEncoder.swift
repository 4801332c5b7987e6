import FoundationEssentials

/// Encodes `PhoneEvent`s as one JSON object per line, keys sorted, `/` unescaped, so scripts can
/// rely on the shape and tests can compare golden lines. Every object has `event` and `at`.
package struct PhoneEventEncoder: Sendable {
    package init() {}

    /// The JSON line for `event` emitted at `date` (wall clock), without the trailing newline.
    package func line(for event: PhoneEvent, at date: Date) -> String {
        var object = fields(for: event)
        object["at"] = .string(UTCTimestamp.format(date))
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        guard let data = try? encoder.encode(object) else {
            // Unreachable with JSONOutput (finite numbers only); still never print a broken line.
            return #"{"event":"error","message":"could not encode an event"}"#
        }
        return String(decoding: data, as: UTF8.self)
    }

    private func fields(for event: PhoneEvent) -> [String: JSONOutput] {
        switch event {
        case .card(let card): Self.fields(card)
        case .alert(let alert): Self.fields(alert)
        case .connection(let link): Self.fields(link)
        case .wake(let notice): Self.fields(notice)
        case .error(let kind, let message):
            ["event": "error", "message": .string(message), "kind": kind.map(JSONOutput.string)]
                .compactMapValues { $0 }
        }
    }

    private static func fields(_ card: Card) -> [String: JSONOutput] {
        var object: [String: JSONOutput?] = ["event": "card", "state": .string(card.state.rawValue)]
        if let snapshot = card.snapshot {
            object["request_id"] = .string(snapshot.requestID)
            object["status"] = snapshot.status.map { .string($0.rawValue) }
            object["phase"] = snapshot.phase.map { .string($0.rawValue) }
            object["task_title"] = snapshot.taskTitle.map(JSONOutput.string)
            object["current_step"] = snapshot.currentStep.map(JSONOutput.string)
            object["current_action"] = snapshot.currentAction.map(JSONOutput.string)
            object["current_target"] = snapshot.currentTarget.map(JSONOutput.string)
            object["current_app"] = snapshot.currentApp.map(JSONOutput.string)
            object["last_error"] = snapshot.lastError.map(JSONOutput.string)
            object["progress"] = snapshot.progress.map(JSONOutput.number)
            object["shows_progress"] = snapshot.showsProgress.map(JSONOutput.bool)
            object["can_stop"] = snapshot.canStop.map(JSONOutput.bool)
            object["revision"] = snapshot.revision.map(JSONOutput.unsigned)
            object["updated_at"] = snapshot.updatedAt.map(JSONOutput.string)
            object["ended_at"] = snapshot.endedAt.map(JSONOutput.string)
        }
        if let problem = card.problem {
            object["problem"] = .string(problem.description)
            object["problem_kind"] = .string(problem.kind)
        }
        return object.compactMapValues { $0 }
    }

    private static func fields(_ alert: Alert) -> [String: JSONOutput] {
        let object: [String: JSONOutput?] = [
            "event": "alert",
            "transition": .string(alert.transition.rawValue),
            "request_id": alert.requestID.map(JSONOutput.string),
            "connection_id": alert.connectionID.map(JSONOutput.string),
            "epoch": alert.epoch.map { .unsigned(UInt64($0)) },
            "event_id": alert.eventID.map(JSONOutput.unsigned),
            "board_at": alert.boardTime.map(JSONOutput.string),
        ]
        return object.compactMapValues { $0 }
    }

    private static func fields(_ link: LinkState) -> [String: JSONOutput] {
        let object: [String: JSONOutput?] = [
            "event": "connection",
            "usb": .string(link.usb.rawValue),
            "wake": .string(link.wake.rawValue),
            "connection_id": link.connectionID.map(JSONOutput.string),
        ]
        return object.compactMapValues { $0 }
    }

    private static func fields(_ notice: WakeNotice) -> [String: JSONOutput] {
        var object: [String: JSONOutput] = [
            "event": "wake",
            "version": .unsigned(UInt64(notice.version)),
            "reason": .string(notice.reason),
            "epoch": .unsigned(UInt64(notice.epoch)),
            "seq": .unsigned(notice.sequence),
        ]
        switch notice.verdict {
        case .newEpoch:
            object["verdict"] = "new_epoch"
        case .next(let missed):
            object["verdict"] = "new"
            object["missed"] = .unsigned(missed)
        case .duplicate:
            object["verdict"] = "duplicate"
        }
        return object
    }
}
