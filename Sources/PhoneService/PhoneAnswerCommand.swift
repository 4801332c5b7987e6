import Configuration
import HTTPClient
import HTTPClientCore
import PhoneCore
import Platform
import WireFormat

/// `aiden-phone stop|done|refuse|dismiss [ID]`, for scripts and the desktop entry's actions: one answer, posted over
/// the transport the client uses (bound to `[board] interface` as it is), with this phone's id. Without an ID the
/// task is the one the running client's card shows, at the revision it shows, asked of the client's status socket
/// (`GET /v1/task`, `StatusSocket`): an answer answers what the person saw, and the board refuses it
/// (`stale_revision`) when the task has moved on since. Never the board's current revision, which would take a
/// prompt nobody was shown; with no running client to ask, it says so and posts nothing. With an ID, at
/// `--revision N` when given (else the board takes it for the task as it is). One line out; the exit status says
/// how it went (`ExitStatus`). A request that gets no HTTP answer is sent again with the same `answer_id` (the board
/// records an id once), up to three times in all. A recorded stop, done or refuse is told to the running client, when
/// there is one (`POST /v1/answered`), so it follows what the answer causes at once instead of waiting for the board's
/// Wake.
package enum PhoneAnswerCommand {
    /// The exit statuses, as `--help` and docs/phone-client.md list them.
    package enum ExitStatus {
        package static let recorded: Int32 = 0
        /// The board refused the answer (409 `stale_revision`, `not_stoppable`, `task_ended`, `not_waiting`,
        /// `not_ended`; 404 `not_found`; any other error status); its words are printed.
        package static let refused: Int32 = 1
        /// No ID was given and the running client's card shows no task.
        package static let noTaskShown: Int32 = 3
        /// EX_UNAVAILABLE: the board gave no HTTP answer (or no readable one), or, without an ID, no running client
        /// said which task it shows.
        package static let unavailable: Int32 = 69
    }

    package static let attempts = 3

    /// What happened, as the line to print and the exit status.
    package struct Result: Sendable, Equatable {
        package var line: String
        package var status: Int32
    }

    /// The task an answer without an ID is for, or the line and status to end with.
    package enum Shown: Sendable, Equatable {
        case task(ShownTask)
        case ended(Result)
    }

    /// Asks the running client which task its card shows (its status socket at `statusSocket`; nil: there is
    /// none to ask, no `XDG_RUNTIME_DIR`).
    package static func shown(by statusSocket: String?, answer: Answer) -> Shown {
        guard let path = statusSocket else {
            return .ended(
                Result(
                    line: "aiden-phone: \(answer.rawValue): no running aiden-phone to ask which task its card shows "
                        + "(XDG_RUNTIME_DIR is not set); run it in the person's session, or name the task: "
                        + "aiden-phone \(answer.rawValue) ID",
                    status: ExitStatus.unavailable))
        }
        let client = HTTPClient(maxResponseBytes: 4096)
        let reply = Swift.Result { () throws(HTTPClientError) in
            try client.perform(StatusSocket.taskRequest(path: path, milliseconds: 5_000))
        }
        return shown(reply, answer: answer, path: path)
    }

    /// Reads the client's reply to `GET /v1/task`: the task, or why there is none to answer.
    package static func shown(
        _ reply: Swift.Result<HTTPClientResponse, HTTPClientError>, answer: Answer, path: String
    ) -> Shown {
        let verb = answer.rawValue
        switch reply {
        case let .failure(error):
            return .ended(
                Result(
                    line: "aiden-phone: \(verb): no aiden-phone answers at \(path) (\(error)), so no card is shown to "
                        + "answer; start it (systemctl --user start aiden-phone), or name the task: aiden-phone \(verb) ID",
                    status: ExitStatus.unavailable))
        case let .success(response) where response.status == 204:
            return .ended(Result(line: "aiden-phone: \(verb): the card shows no task", status: ExitStatus.noTaskShown))
        case let .success(response) where response.status == 200:
            guard let task = ShownTask(json: response.body) else {
                return .ended(
                    Result(
                        line: "aiden-phone: \(verb): the running aiden-phone's answer names no task: "
                            + BoardText.printable(String(decoding: response.body, as: UTF8.self), limit: 120),
                        status: ExitStatus.unavailable))
            }
            return .task(task)
        case let .success(response):
            let words = BoardText.printable(String(decoding: response.body, as: UTF8.self), limit: 120)
            return .ended(
                Result(
                    line: "aiden-phone: \(verb): the running aiden-phone answered HTTP \(response.status) (\(words)) "
                        + "when asked which task its card shows; restart it, or name the task: aiden-phone \(verb) ID",
                    status: ExitStatus.unavailable))
        }
    }

    /// The pure part: the answer for `task` at its revision, through `perform` (synchronous), and what to say.
    package static func answer(
        _ answer: Answer, task: ShownTask, phoneID: String, answerID: String,
        perform: (BoardRequest) -> BoardResponse
    ) -> Result {
        let request = BoardRequest.answer(
            requestID: task.requestID, answer, answerID: answerID, phoneID: phoneID, revision: task.revision)
        var response = perform(request)
        var sent = 1
        while case .failed = response, sent < attempts {
            response = perform(request)
            sent += 1
        }
        let outcome = AnswerOutcome.interpret(
            response, answer: answer, requestID: task.requestID, answerID: answerID, title: task.title)
        switch outcome.result {
        case .recorded:
            return Result(line: outcome.line, status: ExitStatus.recorded)
        case let .refused(problem, _):
            let status: Int32 =
                switch problem {
                case .unreachable, .malformed: ExitStatus.unavailable
                case .forbidden, .httpStatus: ExitStatus.refused
                }
            return Result(line: outcome.line, status: status)
        }
    }

    /// The shell: configuration and phone id as the client takes them, the task (named, or the one the running
    /// client shows), then `answer(…)` over HTTP.
    package static func run(
        _ answer: Answer, requestID: String?, revision: UInt64? = nil, configPath: String?,
        environment: [String: String]
    ) -> Result {
        let paths = PhonePaths.resolve(isRoot: CurrentProcess.isRoot(), environment: environment)
        let configuration: PhoneConfiguration
        do {
            configuration = try PhoneDaemon.loadConfiguration(configPath, paths: paths, environment: environment)
                .configuration
        } catch {
            return Result(line: "aiden-phone: \(error)", status: PhoneDaemon.configurationExitCode)
        }
        var random = SystemRandomNumberGenerator()
        let phoneID: String
        if let configured = configuration.phone.id, !configured.isEmpty {
            phoneID = configured
        } else if let directory = configuration.state.directory ?? paths.stateDirectory {
            let state = PhoneStateDirectory(path: directory)
            do {
                try state.prepare()
                phoneID = try state.phoneID(configured: nil, using: &random).id
            } catch {
                return Result(line: "aiden-phone: \(error)", status: PhoneDaemon.stateExitCode)
            }
        } else {
            return Result(
                line: "aiden-phone: no phone id: set [phone] id or LIVE_ACTIVITY_PHONE_ID, or a state directory",
                status: PhoneDaemon.stateExitCode)
        }
        let task: ShownTask
        if let requestID {
            task = ShownTask(requestID: requestID, revision: revision, title: nil)
        } else {
            switch shown(by: paths.statusSocket, answer: answer) {
            case let .task(shown): task = shown
            case let .ended(result): return result
            }
        }
        let transport = HTTPBoardTransport(board: configuration.board)
        let result = Self.answer(
            answer, task: task, phoneID: phoneID, answerID: Answer.newAnswerID(using: &random),
            perform: transport.perform)
        if result.status == ExitStatus.recorded, answer.isFollowed, let path = paths.statusSocket {
            // Best effort: with no client running (an answer by ID) there is no card to follow it.
            _ = try? HTTPClient(maxResponseBytes: 1024).perform(
                StatusSocket.answeredRequest(path: path, milliseconds: 1_000))
        }
        return result
    }
}
