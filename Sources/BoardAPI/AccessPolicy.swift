import NetworkAddress

/// Who may talk to the board over HTTP (docs/protocol.md §3.1): decided before any handler runs.
///
/// Two checks: the peer must be loopback or inside an allowed subnet (the USB ECM link), and the
/// `Host` header must name this board (the address the request arrived on, a configured listen
/// host, or a loopback name), so a web page on the phone cannot reach the board through a DNS
/// name that rebinds to 192.168.42.1.
package struct AccessPolicy: Sendable, Equatable {
    package enum Decision: Sendable, Equatable {
        case allow
        case deny(Denial)
    }

    package enum Denial: Sendable, Equatable, CustomStringConvertible {
        case peerOutsideAllowedSubnets(IPAddress)
        case missingHost
        case foreignHost(String)
        /// Pairing (`decidePairing`): the peer is the board itself, on loopback or one of its own addresses.
        case pairingFromTheBoard(IPAddress)
        /// Pairing: the peer is not on the USB link (outside `[http] allowed_subnets`, or not an IP peer).
        case pairingOffTheLink(HTTPRequest.Peer)
        /// Pairing: the connection's local address is unknown, so the board cannot tell the peer from itself.
        case pairingLocalAddressUnknown(IPAddress)
        /// Pairing or an answer (`refusing`): `Origin` names another site than the board's own origin (the
        /// second value).
        case crossSiteOrigin(String, own: String, refusing: PersonRequest = .pairing)
        /// Pairing or an answer (`refusing`): `Sec-Fetch-Site` says a browser sent it for another site.
        case crossSiteFetch(String, refusing: PersonRequest = .pairing)
        /// At accept (`decideConnection`): the peer is the board itself (loopback, or one of its own addresses)
        /// and no loopback listener is configured, so no local process is meant to be served.
        case connectionFromTheBoard(IPAddress)
        /// `decideConnection` or `decidePairing`: the board's own addresses could not be read, so a peer inside the
        /// allowed subnets cannot be told from the board itself.
        case boardAddressesUnknown(IPAddress)
        /// When the connection opens (`decideArrival`): it came in on another interface than `[http] interface`
        /// (the second value; nil when the kernel did not say which).
        case arrivedOnAnotherInterface(IPAddress, interface: String?, expected: String)

        /// The error code of the 403 answer: `forbidden` for the rules of every path, `not_ecm_peer` and
        /// `cross_site` for the pairing window's own, so a client can tell which rule it broke.
        package var code: String {
            switch self {
            case .peerOutsideAllowedSubnets, .missingHost, .foreignHost, .connectionFromTheBoard,
                .arrivedOnAnotherInterface, .boardAddressesUnknown:
                return "forbidden"
            case .pairingFromTheBoard, .pairingOffTheLink, .pairingLocalAddressUnknown: return "not_ecm_peer"
            case .crossSiteOrigin, .crossSiteFetch: return "cross_site"
            }
        }

        package var description: String {
            let onlyTheCable = "only the phone at the other end of the USB link may open a pairing window"
            switch self {
            case let .peerOutsideAllowedSubnets(peer):
                return "peer \(peer) is outside loopback and the allowed subnets"
            case .missingHost:
                return "request has no Host header"
            case let .foreignHost(host):
                return "Host '\(host)' does not name this board"
            case let .pairingFromTheBoard(peer):
                return "\(onlyTheCable); \(peer) is an address of the board itself"
            case let .pairingOffTheLink(peer):
                return "\(onlyTheCable); peer \(peer) is not on it ([http] allowed_subnets)"
            case let .pairingLocalAddressUnknown(peer):
                return "\(onlyTheCable); the address the request from \(peer) arrived on is unknown, so it cannot be "
                    + "told from the board itself"
            case let .crossSiteOrigin(origin, own, refusing):
                return "Origin '\(AccessPolicy.shown(origin))' is not this board's own (\(AccessPolicy.shown(own))): "
                    + refusing.noPage
            case let .crossSiteFetch(site, refusing):
                return "Sec-Fetch-Site '\(AccessPolicy.shown(site))' (only same-origin or none): \(refusing.noPage)"
            case let .connectionFromTheBoard(peer):
                return "connection from \(peer), the board itself: a local process is served only when [http] listen "
                    + "has a loopback listener"
            case let .boardAddressesUnknown(peer):
                return "the board's own addresses could not be read, so \(peer) cannot be told from the board itself"
            case let .arrivedOnAnotherInterface(peer, interface, expected):
                let arrived = interface.map { "on \(AccessPolicy.shown($0))" } ?? "on an unknown interface"
                return "connection from \(peer) arrived \(arrived), not on \(expected) ([http] interface)"
            }
        }
    }

    /// What only the person, through a program on the phone, may ask for, never a web page: named in a
    /// cross-site refusal.
    package enum PersonRequest: Sendable, Equatable {
        /// `POST /api/bluetooth/pairing/start`.
        case pairing
        /// `POST /api/live-activity/tasks/{request_id}/answer`.
        case answer
        /// `POST /api/phone/app-state`: the app's state and the phone's clock.
        case appState

        var noPage: String {
            switch self {
            case .pairing: "a web page may not open a pairing window"
            case .answer: "a web page may not answer a task for the person"
            case .appState: "a web page may not report the phone's app state or clock"
            }
        }
    }

    package var allowedSubnets: [Subnet]
    /// Host names (lower-cased, IPv6 without brackets) accepted in `Host` besides loopback and
    /// the local address: the configured listen hosts (wildcards excluded).
    package var listenHosts: Set<String>
    /// Whether a listener takes loopback connections (`127.0.0.1`, `[::1]`, or a wildcard, which includes them):
    /// only then are processes on the board meant to be served (`decideConnection`).
    package var servesLoopback: Bool
    /// `[http] interface`: the one interface connections to a non-loopback listener may arrive on; nil: any.
    package var interface: String?

    package init(allowedSubnets: [Subnet], listenAddresses: [IPAddress], interface: String? = nil) {
        self.allowedSubnets = allowedSubnets
        self.listenHosts = Set(listenAddresses.filter { !$0.isUnspecified }.map(\.description))
        self.servesLoopback = listenAddresses.contains { $0.isLoopback || $0.isUnspecified }
        self.interface = interface
    }

    private static let loopbackHosts: Set<String> = ["localhost", "127.0.0.1", "::1"]

    package func decide(peer: HTTPRequest.Peer, localAddress: IPAddress?, host: String?) -> Decision {
        guard case let .ip(address) = peer else { return .allow }  // Unix socket: file permissions guard it
        guard address.isLoopback || allowedSubnets.contains(where: { $0.contains(address) }) else {
            return .deny(.peerOutsideAllowedSubnets(address.unmapped))
        }
        guard let host, !host.isEmpty else { return .deny(.missingHost) }
        guard let name = AccessPolicy.hostName(fromHostHeader: host) else { return .deny(.foreignHost(host)) }
        if AccessPolicy.loopbackHosts.contains(name) || listenHosts.contains(name) { return .allow }
        if let local = localAddress, let named = IPAddress(name), named.unmapped == local.unmapped { return .allow }
        return .deny(.foreignHost(host))
    }

    package func decide(_ request: HTTPRequest) -> Decision {
        decide(peer: request.peer, localAddress: request.localAddress, host: request.header("host"))
    }

    /// The host part of a `Host` header, lower-cased, brackets removed, IP literals canonical;
    /// nil when malformed. Runs on every phone request: one pass over the bytes, and no copy or
    /// re-rendering for the usual case, a canonical IPv4 literal (the strict parser accepts only
    /// canonical dotted quads, so the text already is the canonical form).
    package static func hostName(fromHostHeader header: String) -> String? {
        var hasCapital = false
        for byte in header.utf8 where byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") {
            hasCapital = true
            break
        }
        let value = hasCapital ? header.lowercased() : header
        if value.utf8.first == UInt8(ascii: "[") {
            guard let close = value.firstIndex(of: "]") else { return nil }
            let inner = value[value.index(after: value.startIndex)..<close]
            let rest = value[value.index(after: close)...]
            guard rest.isEmpty || (rest.first == ":" && isPort(rest.dropFirst())) else { return nil }
            guard let address = IPAddress(inner), address.isIPv6 else { return nil }
            return address.description
        }
        var host = Substring(value)
        if let colon = value.utf8.firstIndex(of: UInt8(ascii: ":")) {
            let port = value[value.index(after: colon)...]
            guard isPort(port) else { return nil }
            host = value[..<colon]
        }
        guard !host.isEmpty else { return nil }
        if IPAddress.isCanonicalIPv4(host) { return String(host) }
        if let address = IPAddress(host) { return address.description }
        return String(host.hasSuffix(".") ? host.dropLast() : host)
    }

    /// One or more ASCII digits (the port of a `Host` header; a second colon fails here too).
    private static func isPort(_ text: Substring) -> Bool {
        guard !text.isEmpty else { return false }
        for byte in text.utf8 where byte < UInt8(ascii: "0") || byte > UInt8(ascii: "9") { return false }
        return true
    }
}
