/// A request checked before libcurl sees it: things libcurl would send verbatim (a header with a line break,
/// a method with a space) or treat as "no limit" (a zero timeout) are rejected here.
struct RequestPlan: Equatable {
    enum BodyMode: Equatable {
        case get
        case head
        /// POST semantics with the given bytes (possibly none) and, for other methods, a custom verb.
        case withBody
    }

    let method: String
    let bodyMode: BodyMode
    /// `Name: value` lines for `CURLOPT_HTTPHEADER`, libcurl's unwanted defaults blanked out.
    let headerLines: [String]

    init(_ request: HTTPClientRequest) throws(HTTPClientError) {
        let method = request.method.uppercased()
        guard !method.isEmpty, method.utf8.allSatisfy(Self.isTokenByte) else {
            throw .invalidRequest("method \"\(request.method)\" is not an HTTP token")
        }
        guard request.url.hasPrefix("http://") || request.url.hasPrefix("HTTP://"),
            !request.url.utf8.contains(where: { $0 < 0x21 || $0 == 0x7F })
        else {
            throw .invalidRequest("URL \"\(request.url)\" is not an http:// URL without spaces or control characters")
        }
        guard request.timeout.connectMilliseconds > 0, request.timeout.totalMilliseconds > 0 else {
            throw .invalidRequest(
                "timeouts must be positive (connect \(request.timeout.connectMilliseconds) ms, "
                    + "total \(request.timeout.totalMilliseconds) ms)")
        }
        if let path = request.unixSocketPath, path.isEmpty || path.utf8.contains(0) {
            throw .invalidRequest("Unix socket path must be non-empty and contain no NUL byte")
        }
        if let local = request.localAddress, local.isEmpty || local.utf8.contains(0) {
            throw .invalidRequest("local address must be non-empty and contain no NUL byte")
        }
        var lines: [String] = []
        var names: Set<String> = []
        for (name, value) in request.headers {
            guard !name.isEmpty, name.utf8.allSatisfy(Self.isTokenByte) else {
                throw .invalidRequest("header name \"\(name)\" is not an HTTP token")
            }
            guard !value.utf8.contains(where: { ($0 < 0x20 && $0 != 0x09) || $0 == 0x7F }) else {
                throw .invalidRequest("header \(name) contains a control character")
            }
            // "Name;" is libcurl's way to send a header with an empty value ("Name:" would remove it).
            lines.append(value.isEmpty ? "\(name);" : "\(name): \(value)")
            names.insert(name.lowercased())
        }
        let mode: BodyMode =
            switch (method, request.body.isEmpty) {
            case ("GET", true): .get
            case ("HEAD", true): .head
            default: .withBody
            }
        if mode == .withBody, !names.contains("content-type") {
            lines.append("Content-Type:")  // libcurl would claim application/x-www-form-urlencoded
        }
        if !names.contains("expect") {
            lines.append("Expect:")  // no 100-continue round trip for larger bodies
        }
        self.method = method
        self.bodyMode = mode
        self.headerLines = lines
    }

    /// RFC 9110 §5.6.2 tchar.
    private static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"):
            return true
        default:
            return "!#$%&'*+-.^_`|~".utf8.contains(byte)
        }
    }
}
