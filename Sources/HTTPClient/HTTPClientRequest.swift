/// One HTTP request as plain values, so callers (aidenctl, the phone's fetcher) build and test it without curl.
package struct HTTPClientRequest: Sendable {
    /// Both limits are enforced by libcurl; a zero or negative value is rejected rather than meaning "forever".
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

    package var method: String
    /// An `http://` URL; with `unixSocketPath` set, its host only fills the `Host` header (use `localhost`).
    package var url: String
    /// Sent in order, as given. `Content-Type` and `Expect` defaults of libcurl are suppressed unless given here.
    package var headers: [(String, String)]
    package var body: [UInt8]
    /// Talk HTTP over this Unix stream socket instead of TCP (the agent socket).
    package var unixSocketPath: String?
    package var timeout: Timeout
    /// libcurl's `CURLOPT_INTERFACE` syntax, e.g. `host!192.168.42.2` or `if!usb0`: binds the local end.
    package var localAddress: String?

    package init(
        method: String = "GET", url: String, headers: [(String, String)] = [], body: [UInt8] = [],
        unixSocketPath: String? = nil, timeout: Timeout = .standard, localAddress: String? = nil
    ) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.unixSocketPath = unixSocketPath
        self.timeout = timeout
        self.localAddress = localAddress
    }
}

extension HTTPClientRequest: Equatable {
    package static func == (lhs: HTTPClientRequest, rhs: HTTPClientRequest) -> Bool {
        lhs.method == rhs.method && lhs.url == rhs.url
            && lhs.headers.map(\.0) == rhs.headers.map(\.0) && lhs.headers.map(\.1) == rhs.headers.map(\.1)
            && lhs.body == rhs.body && lhs.unixSocketPath == rhs.unixSocketPath && lhs.timeout == rhs.timeout
            && lhs.localAddress == rhs.localAddress
    }
}
