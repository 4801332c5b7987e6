import WireFormat

/// The error body every endpoint uses (docs/protocol.md §3.2):
/// `{"status":"error","error":{"code":"…","message":"…","field":"…"}}`.
package struct JSONError: Sendable, Equatable, Error {
    package var status: Int
    package var code: String
    package var message: String
    package var field: String?

    package init(status: Int, code: String, message: String, field: String? = nil) {
        self.status = status
        self.code = code
        self.message = message
        self.field = field
    }

    /// Encoded by hand: tiny, allocation-light, and usable on paths that must not fail.
    package var body: [UInt8] {
        var text =
            "{\"status\":\"error\",\"error\":{\"code\":\(JSONString.quote(code)),\"message\":\(JSONString.quote(message))"
        if let field { text += ",\"field\":\(JSONString.quote(field))" }
        text += "}}"
        return Array(text.utf8)
    }

    package var response: HTTPResponse {
        HTTPResponse(status: status, headers: [("Content-Type", "application/json")], body: body)
    }
}
