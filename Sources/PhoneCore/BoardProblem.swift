/// Why the last fetch produced nothing to show. Each case is a distinct line on the card and an
/// `error` event, because each has a different fix (plug the cable, fix the subnet, fix the board).
package enum BoardProblem: Error, Sendable, Equatable, CustomStringConvertible {
    /// No HTTP answer at all (connection refused, timeout, no route); `detail` is the transport's words.
    case unreachable(detail: String)
    /// `403`: the board's access policy refused this host: it is not on the board's USB link.
    case forbidden(message: String?)
    /// Another unexpected HTTP status (5xx, 404, …), with the board's error message if it sent one.
    case httpStatus(Int, message: String?)
    /// A `200` whose body could not be read.
    case malformed(BoardAnswerError)

    /// A stable machine name for `--json` (`kind` of the error event).
    package var kind: String {
        switch self {
        case .unreachable: "unreachable"
        case .forbidden: "forbidden"
        case .httpStatus: "http_status"
        case .malformed: "malformed"
        }
    }

    /// The board's own words for a refusal or an error status, made printable; nil when it sent none.
    package var boardMessage: String? {
        switch self {
        case .forbidden(let message), .httpStatus(_, let message): message.map { BoardText.printable($0) }
        case .unreachable, .malformed: nil
        }
    }

    package var description: String {
        switch self {
        case .unreachable(let detail):
            "board unreachable: \(detail)"
        case .forbidden:
            "board answered 403 (forbidden): this host is not on the board's USB link"
        case .httpStatus(let status, let message):
            "board answered HTTP \(status)" + (message.map { ": \($0)" } ?? "")
        case .malformed(let error):
            "malformed answer from the board: \(error)"
        }
    }
}
