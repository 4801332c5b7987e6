import FoundationEssentials
import WireFormat

/// Reads the board's HTTP answers into typed values; malformed JSON becomes a `BoardAnswerError`
/// naming the field, HTTP-level refusals become a `BoardProblem`.
package enum BoardAnswer {
    /// Parses a `200` body of `GET /api/live-activity/current` in one pass: the snapshot, and `others` beside
    /// its fields (read leniently: of the wrong type, it reads as not said).
    package static func current(from body: [UInt8]) throws(BoardAnswerError) -> CurrentAnswer {
        try decode(CurrentEnvelope.self, from: body).answer
    }

    /// Parses a `200` body of `POST /api/live-activity/tasks/{id}/answer`:
    /// `{"ok":true,"answer":{…},"task":{…}}`.
    package static func answered(from body: [UInt8]) throws(BoardAnswerError) -> AnswerReceipt {
        try decode(AnswerReceipt.self, from: body)
    }

    /// Parses a `200` body of `GET /api/live-activity/events`.
    package static func events(from body: [UInt8]) throws(BoardAnswerError) -> EventsAnswer {
        try decode(EventsEnvelope.self, from: body).answer
    }

    /// Turns a finished `current` request into what the card shows: `403` is the access policy
    /// refusing this host, any other non-200 status is a board problem, a 200 body must parse.
    package static func current(status: Int, body: [UInt8]) -> Result<CurrentAnswer, BoardProblem> {
        interpret(status: status, body: body, parse: current(from:))
    }

    /// Like `current(status:body:)`, for the events read.
    package static func events(status: Int, body: [UInt8]) -> Result<EventsAnswer, BoardProblem> {
        interpret(status: status, body: body, parse: events(from:))
    }

    /// Like `current(status:body:)`, for `GET /status` (whose 200 body is read leniently: an older board
    /// may not name its instance).
    package static func status(status: Int, body: [UInt8]) -> Result<BoardStatusAnswer, BoardProblem> {
        interpret(status: status, body: body) { BoardStatusAnswer(body: $0) }
    }

    private static func interpret<Answer>(
        status: Int, body: [UInt8], parse: ([UInt8]) throws(BoardAnswerError) -> Answer
    ) -> Result<Answer, BoardProblem> {
        switch status {
        case 200:
            do throws(BoardAnswerError) {
                return .success(try parse(body))
            } catch {
                return .failure(.malformed(error))
            }
        case 403:
            return .failure(.forbidden(message: errorMessage(in: body)))
        default:
            return .failure(.httpStatus(status, message: errorMessage(in: body)))
        }
    }

    /// The `error.message` of the board's error body, if the body is one.
    static func errorMessage(in body: [UInt8]) -> String? {
        (try? JSONDecoder().decode(ErrorAnswer.self, from: Data(body)))?.error?.message
    }

    /// The `error.code` of the board's error body (`not_stoppable`, `task_ended`, …), if the body is one.
    package static func errorCode(in body: [UInt8]) -> String? {
        (try? JSONDecoder().decode(ErrorAnswer.self, from: Data(body)))?.error?.code
    }

    private static func decode<T: Decodable>(_ type: T.Type, from body: [UInt8]) throws(BoardAnswerError) -> T {
        do {
            return try JSONDecoder().decode(type, from: Data(body))
        } catch let error as BoardAnswerError {
            throw error
        } catch let error as DecodingError {
            throw BoardAnswerError(error)
        } catch {
            throw BoardAnswerError(kind: .notJSON, message: "not valid JSON")
        }
    }
}

/// Reads `status` first and throws `unexpectedStatus` / `boardError` for anything but the expected ones.
private func expectStatus(
    in container: KeyedDecodingContainer<EnvelopeKey>, allowed: Set<String>
) throws -> String {
    let status = try container.decode(String.self, forKey: .status)
    if allowed.contains(status) { return status }
    if status == "error" {
        let body = container.lenient(WireError.self, forKey: .error)
        var message = body?.message ?? "the board answered with an error"
        if let code = body?.code { message = "\(code): \(message)" }
        throw BoardAnswerError(kind: .boardError, field: body?.field, message: message)
    }
    throw BoardAnswerError(kind: .unexpectedStatus, field: "status", message: "unexpected value \"\(status)\"")
}

private struct CurrentEnvelope: Decodable {
    var answer: CurrentAnswer

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: EnvelopeKey.self)
        switch try expectStatus(in: container, allowed: ["ok", "not_found"]) {
        case "ok":
            // The view is tolerant of everything; the phone still needs a task to name, so `request_id`
            // is checked strictly first (the errors name `live_activity.request_id`).
            let snapshot = try container.nestedContainer(keyedBy: SnapshotKey.self, forKey: .liveActivity)
            _ = try snapshot.decodeRequestID(forKey: .requestID)
            // `others` is in the snapshot's object; a board that put it beside the object is read too.
            let beside = try decoder.container(keyedBy: CurrentKey.self)
            let within = try container.nestedContainer(keyedBy: CurrentKey.self, forKey: .liveActivity)
            answer = .snapshot(
                try container.decode(SnapshotView.self, forKey: .liveActivity),
                others: within.lenient(OtherTasks.self, forKey: .others)
                    ?? beside.lenient(OtherTasks.self, forKey: .others))
        default: answer = .notFound
        }
    }
}

private struct EventsEnvelope: Decodable {
    var answer: EventsAnswer

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: EnvelopeKey.self)
        _ = try expectStatus(in: container, allowed: ["ok"])
        // A generation is opaque: accept a number too, as its decimal text.
        let generation =
            container.lenient(String.self, forKey: .generation)
            ?? container.lenient(UInt64.self, forKey: .generation).map { String($0) }
        answer = EventsAnswer(
            epoch: container.lenient(UInt16.self, forKey: .epoch),
            generation: generation,
            events: try container.decode([BoardEvent].self, forKey: .events),
            next: container.lenient(UInt64.self, forKey: .next),
            truncated: container.lenient(Bool.self, forKey: .truncated) ?? false,
            resetRequired: container.lenient(Bool.self, forKey: .resetRequired) ?? false)
    }
}
