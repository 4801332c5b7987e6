import BoardAPI

/// A response as the bytes that go on the wire: the status line, a `Date` field, the handler's fields,
/// `Content-Length` (none where the status forbids a body) and, on the last answer of a connection,
/// `Connection: close`; then the body. The `Date` sits at a known offset so that a kept answer
/// (`PreparedResponses`) is brought to the current second in place instead of built again.
struct WireResponse: Sendable {
    private(set) var bytes: [UInt8]
    /// Where the `Date` field's 29 characters are.
    let dateOffset: Int
    /// Where the body begins: a `HEAD` answer is the bytes before it.
    let bodyOffset: Int
    /// The connection closes after this answer.
    let closes: Bool
    private(set) var date: HTTPDate

    /// `keepingAlive`: say `Connection: keep-alive`, which an HTTP/1.0 client needs to hear (`Head.keepAliveAsked`).
    init(_ response: HTTPResponse, date: HTTPDate, closing: Bool, keepingAlive: Bool = false) {
        let closes =
            closing
            || response.headers.contains { $0.name.lowercased() == "connection" && $0.value.lowercased() == "close" }
        var head = "HTTP/1.1 \(response.status) \(Self.reason(response.status))\r\nDate: "
        let dateOffset = head.utf8.count
        var rest = "\r\n"
        var saidClose = false
        for field in response.headers {
            // The server frames the body itself: a handler's own length would contradict it.
            let name = field.name.lowercased()
            if name == "content-length" || name == "transfer-encoding" || name == "date" { continue }
            if name == "connection" { saidClose = true }
            rest += "\(Self.clean(field.name)): \(Self.clean(field.value))\r\n"
        }
        if Self.allowsBody(response.status) { rest += "Content-Length: \(response.body.count)\r\n" }
        if closes, !saidClose { rest += "Connection: close\r\n" }
        if keepingAlive, !closes, !saidClose { rest += "Connection: keep-alive\r\n" }
        rest += "\r\n"
        head += String(decoding: date.bytes, as: UTF8.self)
        var bytes = Array(head.utf8)
        bytes.append(contentsOf: rest.utf8)
        let bodyOffset = bytes.count
        if Self.allowsBody(response.status) { bytes.append(contentsOf: response.body) }
        self.bytes = bytes
        self.dateOffset = dateOffset
        self.bodyOffset = bodyOffset
        self.closes = closes
        self.date = date
    }

    /// The bytes to send: without the body for a `HEAD`.
    func sent(headOnly: Bool) -> ArraySlice<UInt8> { headOnly ? bytes[..<bodyOffset] : bytes[...] }

    /// Brings the `Date` field to `now`'s second.
    mutating func redate(_ now: HTTPDate) {
        guard now.second != date.second else { return }
        bytes.replaceSubrange(dateOffset..<dateOffset + HTTPDate.length, with: now.bytes)
        date = now
    }

    /// 1xx, 204 and 304 carry no body (RFC 9110 §6.4.1), so no length either.
    static func allowsBody(_ status: Int) -> Bool { !(100..<200).contains(status) && status != 204 && status != 304 }

    /// A field's text as it may go on the wire: CR, LF and NUL would end or split the field, so they become spaces.
    private static func clean(_ text: String) -> String {
        guard text.utf8.contains(where: { $0 == 13 || $0 == 10 || $0 == 0 }) else { return text }
        return String(text.map { $0 == "\r" || $0 == "\n" || $0 == "\r\n" || $0 == "\0" ? " " : $0 })
    }

    /// The reason phrase of every status the servers give (RFC 9110 §15); others get an empty one, as allowed.
    static func reason(_ status: Int) -> String {
        switch status {
        case 100: return "Continue"
        case 200: return "OK"
        case 201: return "Created"
        case 202: return "Accepted"
        case 204: return "No Content"
        case 304: return "Not Modified"
        case 400: return "Bad Request"
        case 401: return "Unauthorized"
        case 403: return "Forbidden"
        case 404: return "Not Found"
        case 405: return "Method Not Allowed"
        case 408: return "Request Timeout"
        case 409: return "Conflict"
        case 410: return "Gone"
        case 411: return "Length Required"
        case 412: return "Precondition Failed"
        case 413: return "Content Too Large"
        case 415: return "Unsupported Media Type"
        case 422: return "Unprocessable Content"
        case 428: return "Precondition Required"
        case 429: return "Too Many Requests"
        case 431: return "Request Header Fields Too Large"
        case 500: return "Internal Server Error"
        case 501: return "Not Implemented"
        case 503: return "Service Unavailable"
        case 505: return "HTTP Version Not Supported"
        default: return ""
        }
    }
}
