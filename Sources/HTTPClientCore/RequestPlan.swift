import NetworkAddress
import WireFormat

/// A request checked and written out before any socket is opened: where it goes, and the exact bytes that go.
/// Anything that would put a different request on the wire than the caller meant (a header with a line break, a
/// method with a space, a name to resolve) or turn a limit into "no limit" (a zero timeout) is refused here.
package struct RequestPlan: Equatable, Sendable {
    /// Where the connection goes. The client resolves no names: the board is an IP literal or `localhost`.
    package enum Destination: Hashable, Sendable {
        case unixSocket(path: String)
        /// Tried in order until one accepts (`localhost`: IPv4 first, then IPv6).
        case tcp(addresses: [IPAddress], port: UInt16)
    }

    package let destination: Destination
    package let localEnd: HTTPClientRequest.LocalEnd?
    /// The method as sent (upper case).
    package let method: String
    /// The request line, the headers and the body, ready to send as one write.
    package let wire: [UInt8]
    /// Whether the answer carries a body (not for `HEAD`).
    package var expectsBody: Bool { method != "HEAD" }

    package init(_ request: HTTPClientRequest) throws(HTTPClientError) {
        let method = request.method.uppercased()
        guard !method.isEmpty, method.utf8.allSatisfy(HTTPSyntax.isTokenByte) else {
            throw .invalidRequest("method \"\(request.method)\" is not an HTTP token")
        }
        guard request.timeout.connectMilliseconds > 0, request.timeout.totalMilliseconds > 0 else {
            throw .invalidRequest(
                "timeouts must be positive (connect \(request.timeout.connectMilliseconds) ms, "
                    + "total \(request.timeout.totalMilliseconds) ms)")
        }
        let url = try Self.split(request.url)
        if let path = request.unixSocketPath {
            guard !path.isEmpty, !path.utf8.contains(0) else {
                throw .invalidRequest("Unix socket path must be non-empty and contain no NUL byte")
            }
            destination = .unixSocket(path: path)
        } else {
            destination = .tcp(addresses: try Self.addresses(of: url.host), port: url.port)
        }
        if case .interface(let name)? = request.localEnd,
            name.isEmpty || name.utf8.count > 15
                || name.utf8.contains(where: { $0 <= 0x20 || $0 == 0x2F || $0 >= 0x7F })
        {
            throw .invalidRequest("interface name \"\(name)\" is not a network interface's name")
        }
        var head = "\(method) \(url.target) HTTP/1.1\r\n"
        var givenHost = false
        for (name, value) in request.headers {
            guard !name.isEmpty, name.utf8.allSatisfy(HTTPSyntax.isTokenByte) else {
                throw .invalidRequest("header name \"\(name)\" is not an HTTP token")
            }
            guard !value.utf8.contains(where: { ($0 < 0x20 && $0 != 0x09) || $0 == 0x7F }) else {
                throw .invalidRequest("header \(name) contains a control character")
            }
            switch name.lowercased() {
            case "content-length", "transfer-encoding":
                throw .invalidRequest("header \(name) is the client's own to write")
            case "host":
                givenHost = true
            default:
                break
            }
        }
        if !givenHost { head += "Host: \(url.authority)\r\n" }
        for (name, value) in request.headers {
            head += "\(name): \(HTTPSyntax.withoutOptionalWhitespace(value))\r\n"
        }
        // A request that may carry a body says how long it is, even when empty: a server must not wait for one.
        let sendsLength = !request.body.isEmpty || !(method == "GET" || method == "HEAD")
        if sendsLength { head += "Content-Length: \(request.body.count)\r\n" }
        head += "\r\n"
        self.method = method
        self.localEnd = request.localEnd
        self.wire = Array(head.utf8) + request.body
    }

    /// The parts of an `http://` URL a request needs.
    struct URLParts: Equatable {
        /// `host[:port]` as written, for the `Host` header.
        var authority: String
        /// The host without brackets or port.
        var host: String
        var port: UInt16
        /// The path and query (`/` when the URL has none); the fragment is not sent.
        var target: String
    }

    static func split(_ url: String) throws(HTTPClientError) -> URLParts {
        let notHTTP = HTTPClientError.invalidRequest(
            "URL \"\(url)\" is not an http:// URL without spaces or control characters")
        guard url.utf8.count > 7, url.prefix(7).lowercased() == "http://",
            !url.utf8.contains(where: { $0 < 0x21 || $0 >= 0x7F })
        else { throw notHTTP }
        let rest = url.dropFirst(7)
        let authority = rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        var target = String(rest.dropFirst(authority.count).prefix { $0 != "#" })
        if target.isEmpty || target.first == "?" { target = "/" + target }
        guard !authority.contains("@") else {
            throw .invalidRequest("URL \"\(url)\" has a user name; credentials do not go in URLs")
        }
        var host = authority[...]
        var portText: Substring = ""
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { throw notHTTP }
            host = authority[authority.index(after: authority.startIndex)..<close]
            let after = authority[authority.index(after: close)...]
            guard after.isEmpty || after.hasPrefix(":") else { throw notHTTP }
            portText = after.dropFirst()
        } else if let colon = authority.firstIndex(of: ":") {
            host = authority[..<colon]
            portText = authority[authority.index(after: colon)...]
        }
        var port: UInt16 = 80
        if !portText.isEmpty {
            guard portText.utf8.count <= 5, portText.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }),
                let number = UInt16(portText), number > 0
            else { throw .invalidRequest("URL \"\(url)\" has no valid port (1–65535)") }
            port = number
        }
        guard !host.isEmpty else { throw .invalidRequest("URL \"\(url)\" has no host") }
        return URLParts(authority: String(authority), host: String(host), port: port, target: target)
    }

    private static func addresses(of host: String) throws(HTTPClientError) -> [IPAddress] {
        if host.lowercased() == "localhost" { return [IPAddress(v4: 127, 0, 0, 1), IPAddress("::1")!] }
        guard let address = IPAddress(host) else {
            throw .invalidRequest("host \"\(host)\" is not an IP address or localhost (no names are resolved)")
        }
        return [address]
    }

}
