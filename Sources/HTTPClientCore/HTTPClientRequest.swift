import NetworkAddress

/// One HTTP request as plain values, so callers (aidenctl, the phone's fetcher) build and test it without a socket.
package struct HTTPClientRequest: Sendable {
    /// Both limits are enforced by the client; a zero or negative value is rejected rather than meaning "forever".
    package struct Timeout: Sendable, Equatable {
        package var connectMilliseconds: Int
        package var totalMilliseconds: Int

        package init(connectMilliseconds: Int, totalMilliseconds: Int) {
            self.connectMilliseconds = connectMilliseconds
            self.totalMilliseconds = totalMilliseconds
        }

        /// Generous for loopback and USB links, short enough that a wedged peer is noticed.
        package static let standard = Timeout(connectMilliseconds: 2_000, totalMilliseconds: 5_000)
    }

    /// Where the connection's local end is tied, for a peer that must be reached through one link only.
    package enum LocalEnd: Sendable, Equatable {
        /// Leave through this network interface alone (`SO_BINDTODEVICE`), whatever the routes say.
        case interface(String)
        /// Bind the local end to this address before connecting.
        case address(IPAddress)
    }

    package var method: String
    /// An `http://` URL whose host is an IP literal or `localhost` (the client resolves no names). With
    /// `unixSocketPath` set, its host only fills the `Host` header (use `localhost`).
    package var url: String
    /// Sent in order, as given, after `Host` (unless given here). `Content-Length` is the client's own to write.
    package var headers: [(String, String)]
    package var body: [UInt8]
    /// Talk HTTP over this Unix stream socket instead of TCP (the agent socket).
    package var unixSocketPath: String?
    package var timeout: Timeout
    package var localEnd: LocalEnd?

    package init(
        method: String = "GET", url: String, headers: [(String, String)] = [], body: [UInt8] = [],
        unixSocketPath: String? = nil, timeout: Timeout = .standard, localEnd: LocalEnd? = nil
    ) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.unixSocketPath = unixSocketPath
        self.timeout = timeout
        self.localEnd = localEnd
    }
}

extension HTTPClientRequest: Equatable {
    package static func == (lhs: HTTPClientRequest, rhs: HTTPClientRequest) -> Bool {
        lhs.method == rhs.method && lhs.url == rhs.url
            && lhs.headers.map(\.0) == rhs.headers.map(\.0) && lhs.headers.map(\.1) == rhs.headers.map(\.1)
            && lhs.body == rhs.body && lhs.unixSocketPath == rhs.unixSocketPath && lhs.timeout == rhs.timeout
            && lhs.localEnd == rhs.localEnd
    }
}
