/// Canned responses the server shell itself produces (before any router runs).
package enum HTTPResponses {
    package static func payloadTooLarge(limit: Int) -> HTTPResponse {
        JSONError(status: 413, code: "payload_too_large", message: "request body exceeds \(limit) bytes").response
    }
}
