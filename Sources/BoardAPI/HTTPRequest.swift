import NetworkAddress

/// A complete HTTP request as the server shell hands it to the router: everything decided
/// from here on is pure and testable without sockets.
package struct HTTPRequest: Sendable, Equatable {
    /// Who sent it: an IP peer on a TCP listener, or a local process on the agent's Unix socket.
    package enum Peer: Sendable, Equatable, CustomStringConvertible {
        case ip(IPAddress)
        case unixSocket

        package var description: String {
            switch self {
            case let .ip(address): return address.description
            case .unixSocket: return "unix-socket"
            }
        }
    }

    /// Who is at the other end of a Unix socket connection, as the kernel says (SO_PEERCRED): the agent socket's
    /// logs name it, and its per-peer connection limit counts by `uid`.
    package struct Credentials: Sendable, Equatable, CustomStringConvertible {
        package var uid: UInt32
        package var pid: Int32

        package init(uid: UInt32, pid: Int32) {
            self.uid = uid
            self.pid = pid
        }

        package var description: String { "uid \(uid) pid \(pid)" }
    }

    package var method: String
    /// The path without the query string, percent-decoded by the server.
    package var path: String
    /// Query parameters in order (first occurrence wins on lookup).
    package var query: [(name: String, value: String)]
    /// Header names lower-cased.
    package var headers: [String: String]
    package var body: [UInt8]
    package var peer: Peer
    /// The local address the request arrived on (for the Host check); nil on the Unix socket.
    package var localAddress: IPAddress?
    /// The peer process on a Unix socket, when the kernel told; nil on TCP.
    package var credentials: Credentials?

    package init(
        method: String, path: String, query: [(name: String, value: String)] = [],
        headers: [String: String] = [:], body: [UInt8] = [], peer: Peer = .unixSocket,
        localAddress: IPAddress? = nil, credentials: Credentials? = nil
    ) {
        self.method = method
        self.path = path
        self.query = query
        // The server hands them lower-cased already (ASCII): then they are taken as they are.
        let lowered = !headers.keys.contains(where: Self.needsLowercasing)
        self.headers =
            lowered
            ? headers
            : Dictionary(headers.map { ($0.key.lowercased(), $0.value) }, uniquingKeysWith: { first, _ in first })
        self.body = body
        self.peer = peer
        self.localAddress = localAddress
        self.credentials = credentials
    }

    /// The peer as log lines name it: the address, or on a Unix socket the process (`uid 1000 pid 4242`).
    package var peerDescription: String {
        if case .unixSocket = peer, let credentials { return "\(credentials)" }
        return peer.description
    }

    /// A header field by name, in any case; a lower-case name (as the routers ask) is looked up as it is.
    package func header(_ name: String) -> String? {
        Self.needsLowercasing(name) ? headers[name.lowercased()] : headers[name]
    }

    /// Whether `lowercased()` may change `text`: it holds an ASCII capital, or a non-ASCII character. A plain loop:
    /// the routers ask on every request.
    private static func needsLowercasing(_ text: String) -> Bool {
        for byte in text.utf8 where (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z")) || byte >= 0x80 {
            return true
        }
        return false
    }

    package func queryValue(_ name: String) -> String? { query.first { $0.name == name }?.value }

    package static func == (a: HTTPRequest, b: HTTPRequest) -> Bool {
        a.method == b.method && a.path == b.path && a.query.elementsEqual(b.query, by: { $0 == $1 })
            && a.headers == b.headers && a.body == b.body && a.peer == b.peer && a.localAddress == b.localAddress
            && a.credentials == b.credentials
    }
}
