/// Builders for the JSON answers every endpoint shares.
enum Responses {
    static let jsonHeaders: [(name: String, value: String)] = [
        ("Content-Type", "application/json"), ("Cache-Control", "no-cache"),
    ]

    /// A JSON answer with an ETag; `304 Not Modified` when the client already has it.
    static func json(_ status: Int, _ body: [UInt8], etag: String, request: HTTPRequest) -> HTTPResponse {
        if status == 200, ETag.matches(ifNoneMatch: request.header("if-none-match"), tag: etag) {
            return HTTPResponse(status: 304, headers: notModifiedHeaders(etag: etag))
        }
        return HTTPResponse(status: status, headers: jsonHeaders + [("ETag", etag)], body: body)
    }

    static func notModifiedHeaders(etag: String) -> [(name: String, value: String)] {
        [("ETag", etag), ("Cache-Control", "no-cache")]
    }

    static func error(_ error: JSONError) -> HTTPResponse {
        HTTPResponse(status: error.status, headers: jsonHeaders, body: error.body)
    }

    static func notFoundEndpoint(_ request: HTTPRequest) -> HTTPResponse {
        error(JSONError(status: 404, code: "not_found", message: "no endpoint \(request.method) \(request.path)"))
    }

    static func methodNotAllowed(_ request: HTTPRequest, allowed: [String]) -> HTTPResponse {
        var response = error(
            JSONError(
                status: 405, code: "method_not_allowed",
                message: "\(request.method) is not allowed on \(request.path); use "
                    + allowed.joined(separator: " or ")))
        response.headers.append(("Allow", allowed.joined(separator: ", ")))
        return response
    }

    static func missingParameter(_ name: String) -> HTTPResponse {
        error(JSONError(status: 400, code: "invalid", message: "query parameter \"\(name)\" is required", field: name))
    }

    static func invalidParameter(_ name: String, _ rule: String) -> HTTPResponse {
        error(invalidParameterError(name, rule))
    }

    static func invalidParameterError(_ name: String, _ rule: String) -> JSONError {
        JSONError(status: 400, code: "invalid", message: "query parameter \"\(name)\" \(rule)", field: name)
    }
}
