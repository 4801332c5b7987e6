import BoardAPI
import FoundationEssentials
import WireFormat

/// What every answer of both routers must be, whatever was asked: a status a server may send, header fields
/// the server puts on the wire as they are (no CR, LF or NUL, which would split the response), and a body that is a
/// JSON object with a `status` member (`error` with a message for every refusal). Returns what the body holds.
enum ResponseChecks {
    /// What the checks need of a body that is a readable JSON object with a string `status`.
    struct Body: BitwiseCopyable, Sendable {
        enum Status: BitwiseCopyable, Sendable {
            case error, notFound, other
        }

        var status: Status
        /// `error` is an object whose `message` is a non-empty string.
        var errorHasMessage: Bool
        var hasLiveActivity: Bool
    }

    /// Reading a body depends on its bytes alone; most answers come back input after input.
    static let bodies = VerdictCache<Body>(slots: 1024, bytesEach: 8192)

    @discardableResult
    static func check(_ response: HTTPResponse, to request: HTTPRequest) throws(InvariantViolation) -> Body? {
        // Only a failure's message names the request: formatted then, not for every answer.
        func asked() -> String { "\(request.method) \(request.path)" }
        try require((200..<600).contains(response.status), "\(asked()): status \(response.status)")
        let splitsTheResponse = { (byte: UInt8) in byte == 0x0D || byte == 0x0A || byte == 0 }
        for (name, value) in response.headers {
            try require(
                !name.isEmpty && !name.utf8.contains(where: splitsTheResponse)
                    && !value.utf8.contains(where: splitsTheResponse),
                "\(asked()): header field \(name.debugDescription): \(value.debugDescription)")
        }
        if response.status == 304 || (request.method == "HEAD" && response.body.isEmpty) {
            try require(response.body.isEmpty, "\(asked()): a 304 with a body")
            return nil
        }
        let body = try bodies.verdict(for: response.body) { () throws(InvariantViolation) in
            guard let value = try? JSONDecoder().decode(JSONValue.self, from: Data(response.body)), value.isReadable,
                case let .object(members) = value, case let .string(status)? = members["status"]
            else {
                throw InvariantViolation(
                    "\(asked()): \(response.status) answer is not a JSON object with a status: \(text(response.body))")
            }
            var errorHasMessage = false
            if case let .object(error)? = members["error"], case let .string(message)? = error["message"] {
                errorHasMessage = !message.isEmpty
            }
            return Body(
                status: status == "error" ? .error : status == "not_found" ? .notFound : .other,
                errorHasMessage: errorHasMessage, hasLiveActivity: members["live_activity"] != nil)
        }
        if response.status >= 400 {
            try require(
                body.status != .other,
                "\(asked()): \(response.status) answer with a status other than error or not_found: "
                    + text(response.body))
            try require(
                body.status != .error || body.errorHasMessage,
                "\(asked()): \(response.status) error without a message")
        }
        return body
    }

    private static func text(_ bytes: [UInt8]) -> String { String(decoding: bytes, as: UTF8.self) }
}
