import NetworkAddress

/// Who may talk to the board over HTTP (CONTRACT.md §3 "Access"): decided before any handler runs.
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

        package var description: String {
            switch self {
            case let .peerOutsideAllowedSubnets(peer):
                return "peer \(peer) is outside loopback and the allowed subnets"
            case .missingHost:
                return "request has no Host header"
            case let .foreignHost(host):
                return "Host '\(host)' does not name this board"
            }
        }
    }

    package var allowedSubnets: [Subnet]
    /// Host names (lower-cased, IPv6 without brackets) accepted in `Host` besides loopback and
    /// the local address: the configured listen hosts (wildcards excluded).
    package var listenHosts: Set<String>

    package init(allowedSubnets: [Subnet], listenAddresses: [IPAddress]) {
        self.allowedSubnets = allowedSubnets
        self.listenHosts = Set(listenAddresses.filter { !$0.isUnspecified }.map(\.description))
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
    /// nil when malformed.
    package static func hostName(fromHostHeader header: String) -> String? {
        let value = header.lowercased()
        if value.hasPrefix("[") {
            guard let close = value.firstIndex(of: "]") else { return nil }
            let inner = value[value.index(after: value.startIndex)..<close]
            let rest = value[value.index(after: close)...]
            guard rest.isEmpty || (rest.first == ":" && rest.dropFirst().allSatisfy(\.isNumber)) else { return nil }
            guard let address = IPAddress(inner), address.isIPv6 else { return nil }
            return address.description
        }
        let parts = value.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count <= 2, let first = parts.first, !first.isEmpty else { return nil }
        if parts.count == 2 { guard !parts[1].isEmpty, parts[1].allSatisfy(\.isNumber) else { return nil } }
        if let address = IPAddress(first) { return address.description }
        return String(first.hasSuffix(".") ? first.dropLast() : first)
    }
}
