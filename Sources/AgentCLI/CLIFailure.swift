import WireFormat

/// Everything that ends a run without the wanted output, with the one line for stderr and the exit status.
package enum CLIFailure: Error, Sendable, Equatable {
    case usage(UsageError)
    case transport(TransportFailure, socketPath: String)
    /// A non-2xx answer; `error` is the daemon's error object when it sent one.
    case daemon(status: Int, error: WireError?, request: String)
    /// A 2xx answer that does not have the shape the command needs.
    case badAnswer(String, socketPath: String)
    /// `task wait --for stop|answer`: the task ended (`status`) first, so what it waited for cannot come.
    case endedBeforeWait(requestID: String, status: String, target: WaitTarget)
    /// `task wait`: its `--timeout` passed first.
    case waitTimedOut(requestID: String, target: WaitTarget, seconds: UInt64)

    package var exitCode: ExitCode {
        switch self {
        case .usage: .usage
        case .transport(.other, _): .failure
        case .transport: .unavailable
        case let .daemon(status, _, _): status == 400 || status == 413 ? .dataError : .failure
        case .badAnswer, .endedBeforeWait: .failure
        case .waitTimedOut: .timedOut
        }
    }

    /// Whether the board cannot be asked just now: it cannot be reached, or it answered a held request 503
    /// `unavailable` because it is stopping. The loops that wait (`task wait`, `events --follow`, `task run`'s
    /// watch for a stop) ask again; anything else ends them.
    package var boardIsAway: Bool {
        switch self {
        case .transport: true
        case let .daemon(status, error, _): status == 503 && error?.code == "unavailable"
        default: false
        }
    }

    /// The stderr line, e.g. `aidenctl: conflict: task chat_ab12 has ended (409)`.
    package var line: String { "aidenctl: " + message }

    package var message: String {
        switch self {
        case let .usage(error):
            return error.description
        case let .transport(failure, socketPath):
            return Self.transportMessage(failure, socketPath: TerminalText.escaped(socketPath))
        case let .daemon(status, error, request):
            guard let error, let message = error.message, !message.isEmpty else {
                let reason = Self.reasons[status].map { " " + $0 } ?? ""
                return "aiden-board answered \(status)\(reason) to \(TerminalText.escaped(request))"
            }
            let code = TerminalText.escaped(error.code.flatMap { $0.isEmpty ? nil : $0 } ?? "error")
            let field = error.field.flatMap { $0.isEmpty ? nil : "field \(TerminalText.escaped($0)), " } ?? ""
            return "\(code): \(TerminalText.escaped(message)) (\(field)\(status))"
        case let .badAnswer(detail, socketPath):
            return "unusable answer from aiden-board at \(TerminalText.escaped(socketPath)): \(detail)"
        case let .endedBeforeWait(requestID, status, target):
            return
                "task \(TerminalText.escaped(requestID)) ended (\(TerminalText.escaped(status))) before \(target.noun)"
        case let .waitTimedOut(requestID, target, seconds):
            return "gave up waiting for \(target.noun) of task \(TerminalText.escaped(requestID)) after \(seconds) s"
        }
    }

    /// For `--json` when there is no daemon error object to print: the agent API's error shape.
    var jsonObject: String {
        let code =
            switch self {
            case .usage: "usage"
            case .transport(.unreachable, _): "unreachable"
            case .transport(.timedOut, _): "timed_out"
            case .transport(.connectionLost, _): "connection_lost"
            case .transport(.other, _): "transport_error"
            case let .daemon(status, _, _): "http_\(status)"
            case .badAnswer: "bad_answer"
            case .endedBeforeWait: "task_ended"
            case .waitTimedOut: "wait_timed_out"
            }
        return JSONText.errorObject(code: code, message: message)
    }

    private static func transportMessage(_ failure: TransportFailure, socketPath: String) -> String {
        switch failure {
        case let .unreachable(detail):
            let hint =
                switch detail {
                case "connection refused", "no such file or directory": " (is the daemon running?)"
                case "permission denied": " (is your user in the socket's group, e.g. aiden?)"
                default: ""
                }
            return "cannot reach aiden-board at \(socketPath): \(TerminalText.escaped(detail))\(hint)"
        case .timedOut:
            return "no answer from aiden-board at \(socketPath) in time (is it stuck?)"
        case let .connectionLost(detail):
            return "aiden-board at \(socketPath) closed the connection before answering: "
                + TerminalText.escaped(detail)
        case let .other(detail):
            return "talking to aiden-board at \(socketPath) failed: \(TerminalText.escaped(detail))"
        }
    }

    private static let reasons: [Int: String] = [
        400: "Bad Request", 403: "Forbidden", 404: "Not Found", 405: "Method Not Allowed", 409: "Conflict",
        413: "Content Too Large", 415: "Unsupported Media Type", 422: "Unprocessable Content",
        429: "Too Many Requests", 500: "Internal Server Error", 502: "Bad Gateway", 503: "Service Unavailable",
    ]
}
