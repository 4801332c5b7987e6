import NetworkAddress

/// The board's HTTP address as the phone is configured with it: `http://192.168.42.1:8080`.
///
/// Deliberately narrow: plain `http` (the link is a local USB cable, and the board serves no TLS),
/// a host that is an IP literal or `localhost` (no DNS, so no rebinding or lookup delays), an
/// optional port, and no path, query or credentials. Paths are appended by the client.
package struct BoardURL: Hashable, Sendable, CustomStringConvertible {
    package enum Host: Hashable, Sendable {
        case address(IPAddress)
        case localhost
    }

    package struct ParseError: Error, Equatable, Sendable {
        package let reason: String
    }

    package let host: Host
    package let port: UInt16

    package init(host: Host, port: UInt16) {
        self.host = host
        self.port = port
    }

    package init(_ text: String) throws(ParseError) {
        guard text.hasPrefix("http://") else {
            if text.lowercased().hasPrefix("https://") {
                throw ParseError(reason: "https is not supported: the board serves plain HTTP on the USB link")
            }
            throw ParseError(reason: "must start with \"http://\"")
        }
        let rest = text.dropFirst("http://".count)
        if rest.contains("?") || rest.contains("#") { throw ParseError(reason: "a query or fragment is not allowed") }
        if rest.contains("@") { throw ParseError(reason: "user names and passwords are not allowed") }
        let authority = rest.prefix { $0 != "/" }
        let path = rest.dropFirst(authority.count)
        guard path.isEmpty || path == "/" else {
            throw ParseError(reason: "a path (\"\(path)\") is not allowed; give only http://host:port")
        }
        let hostText: Substring
        let portText: Substring?
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else {
                throw ParseError(reason: "missing ']' after the IPv6 address")
            }
            hostText = authority[authority.index(after: authority.startIndex)..<close]
            let after = authority[authority.index(after: close)...]
            guard after.isEmpty || after.hasPrefix(":") else { throw ParseError(reason: "expected ':port' after ']'") }
            portText = after.isEmpty ? nil : after.dropFirst()
            guard let address = IPAddress(hostText), address.isIPv6 else {
                throw ParseError(reason: "'\(hostText)' is not an IPv6 address")
            }
            self.host = .address(address)
        } else {
            let parts = authority.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
            hostText = parts[0]
            portText = parts.count == 2 ? parts[1] : nil
            if portText?.contains(":") == true {
                throw ParseError(reason: "IPv6 addresses must be in brackets, e.g. http://[::1]:8080")
            }
            if hostText.lowercased() == "localhost" {
                self.host = .localhost
            } else if let address = IPAddress(hostText), !address.isIPv6 {
                self.host = .address(address)
            } else {
                throw ParseError(reason: "'\(hostText)' is not an IP address or \"localhost\" (names are not resolved)")
            }
        }
        if let portText {
            guard (1...5).contains(portText.count), portText.unicodeScalars.allSatisfy(\.isASCIIDigit),
                let port = UInt16(portText), port != 0
            else {
                throw ParseError(reason: "port must be a number 1...65535")
            }
            self.port = port
        } else {
            self.port = 80
        }
    }

    /// `192.168.42.1:8080`, `[::1]:8080`, `localhost:8080`: the `Host` header value.
    package var authority: String {
        switch host {
        case let .address(address): return "\(address.uriHost):\(port)"
        case .localhost: return "localhost:\(port)"
        }
    }

    /// Canonical form with an explicit port and no trailing slash.
    package var description: String { "http://\(authority)" }

    /// Whether the board is on this machine (`localhost` or a loopback address): no interface to bind then.
    package var isLoopback: Bool {
        switch host {
        case .localhost: true
        case let .address(address): address.isLoopback
        }
    }

    /// The full URL of an API path such as `/api/live-activity/current?phone_id=p1`.
    package func url(path: String) -> String {
        description + (path.hasPrefix("/") ? path : "/" + path)
    }
}
