import Configuration
import PhoneCore
import Platform

#if canImport(Glibc)
import Glibc
#endif

/// `aiden-phone stop|done|refuse|dismiss [ID]`, for scripts: one answer, posted over the transport the
/// client uses (bound to `[board] interface` as it is), with this phone's id; without an ID the task is
/// the card's current one (`GET /api/live-activity/current?phone_id=P`), answered at the revision read there;
/// with an ID, at `--revision N` when given (else the board takes it for the task as it is). One line out; the exit status
/// says how it went (`ExitStatus`). A request that gets no HTTP answer is sent again with the same
/// `answer_id` (the board records an id once), up to three times in all.
package enum PhoneAnswerCommand {
    /// The exit statuses, as `--help` and docs/phone-client.md list them.
    package enum ExitStatus {
        package static let recorded: Int32 = 0
        /// The board refused the answer (409 `not_stoppable`, `task_ended`, `not_waiting`, `not_ended`;
        /// 404 `not_found`; any other error status); its words are printed.
        package static let refused: Int32 = 1
        /// No ID was given and the board shows no task for this phone.
        package static let noCurrentTask: Int32 = 3
        /// EX_UNAVAILABLE: the board gave no HTTP answer (or no readable one).
        package static let unavailable: Int32 = 69
    }

    package static let attempts = 3

    /// What happened, as the line to print and the exit status.
    package struct Result: Sendable, Equatable {
        package var line: String
        package var status: Int32
    }

    /// The pure part: the requests, through `perform` (synchronous), and what to say.
    package static func answer(
        _ answer: PersonAnswer, requestID: String?, revision: UInt64? = nil, phoneID: String, answerID: String,
        perform: (BoardRequest) -> BoardResponse
    ) -> Result {
        var taskID = requestID
        var revision = revision
        var title: String?
        if taskID == nil {
            let response = perform(.current(phoneID: phoneID, ifNoneMatch: nil))
            switch response {
            case let .failed(detail):
                return Result(line: "aiden-phone: board unreachable: \(detail)", status: ExitStatus.unavailable)
            case let .answered(status, _, body, _):
                switch BoardAnswer.current(status: status, body: body) {
                case let .success(.snapshot(task)):
                    taskID = task.requestID
                    title = task.taskTitle
                    revision = revision ?? task.revision
                case .success(.notFound):
                    return Result(
                        line: "aiden-phone: no current task for phone \(phoneID) to \(answer.rawValue)",
                        status: ExitStatus.noCurrentTask)
                case let .failure(problem):
                    let status = if case .malformed = problem { ExitStatus.unavailable } else { ExitStatus.refused }
                    return Result(line: "aiden-phone: \(problem)", status: status)
                }
            }
        }
        guard let taskID else {
            return Result(line: "aiden-phone: the board named no task", status: ExitStatus.unavailable)
        }
        let request = BoardRequest.answer(
            requestID: taskID, answer, answerID: answerID, phoneID: phoneID, revision: revision)
        var response = perform(request)
        var sent = 1
        while case .failed = response, sent < attempts {
            response = perform(request)
            sent += 1
        }
        let outcome = AnswerOutcome.interpret(
            response, answer: answer, requestID: taskID, answerID: answerID, title: title)
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

    /// The shell: configuration and phone id as the client takes them, then `answer(…)` over HTTP.
    package static func run(
        _ answer: PersonAnswer, requestID: String?, revision: UInt64? = nil, configPath: String?,
        environment: [String: String]
    ) -> Result {
        let paths = PhonePaths.resolve(isRoot: geteuid() == 0, environment: environment)
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
        let transport = HTTPBoardTransport(board: configuration.board)
        return Self.answer(
            answer, requestID: requestID, revision: revision, phoneID: phoneID,
            answerID: PersonAnswer.newAnswerID(using: &random),
            perform: transport.perform)
    }
}
