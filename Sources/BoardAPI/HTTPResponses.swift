/// Canned responses the server shell itself produces (before any router runs).
package enum HTTPResponses {
    package static func payloadTooLarge(limit: Int) -> HTTPResponse {
        JSONError(status: 413, code: "payload_too_large", message: "request body exceeds \(limit) bytes").response
    }

    /// A request the server could not have answered (it is stopping, or the handler never did in time).
    package static func unavailable(_ reason: String) -> HTTPResponse {
        JSONError(status: 503, code: "unavailable", message: reason).response
    }
}
