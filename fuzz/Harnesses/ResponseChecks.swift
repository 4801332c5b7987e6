import BoardAPI
import FoundationEssentials
import WireFormat

/// What every answer of both routers must be, whatever was asked: a status a server may send, header fields
/// libmicrohttpd will put on the wire (no CR, LF or NUL, which would split the response), and a body that is a
/// JSON object with a `status` member (`error` with a message for every refusal). Returns the body's members.
enum ResponseChecks {
    @discardableResult
    static func check(
        _ response: HTTPResponse, to request: HTTPRequest
    ) throws(InvariantViolation) -> [String:
        JSONValue]
    {
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
            return [:]
        }
        guard let value = try? JSONDecoder().decode(JSONValue.self, from: Data(response.body)), value.isReadable,
            case let .object(members) = value, case let .string(status)? = members["status"]
        else {
            throw InvariantViolation(
                "\(asked()): \(response.status) answer is not a JSON object with a status: "
                    + String(decoding: response.body, as: UTF8.self))
        }
        if response.status >= 400 {
            guard status == "error" || status == "not_found" else {
                throw InvariantViolation("\(asked()): \(response.status) answer with status \(status)")
            }
            if status == "error" {
                guard case let .object(error)? = members["error"], case let .string(message)? = error["message"],
                    !message.isEmpty
                else {
                    throw InvariantViolation("\(asked()): \(response.status) error without a message")
                }
            }
        }
        return members
    }
}
