import NetworkAddress
import Testing

@testable import BoardAPI

@Suite struct AccessPolicyTests {
    let board = IPAddress(v4: 192, 168, 42, 1)

    func policy(listen: [String] = ["192.168.42.1"]) throws -> AccessPolicy {
        AccessPolicy(
            allowedSubnets: [try Subnet("192.168.42.0/24")], listenAddresses: listen.compactMap { IPAddress($0) })
    }

    func decide(
        _ peer: String, host: String?, local: String? = "192.168.42.1", listen: [String] = ["192.168.42.1"]
    )
        throws -> AccessPolicy.Decision
    {
        let address = try #require(IPAddress(peer))
        return try policy(listen: listen).decide(
            peer: .ip(address), localAddress: local.flatMap { IPAddress($0) },
            host: host)
    }

    /// Peer address rules: loopback and the ECM subnet only, mapped IPv6 judged as IPv4.
    @Test(arguments: [
        ("192.168.42.2", true), ("192.168.42.254", true), ("192.168.42.0", true), ("192.168.43.2", false),
        ("192.168.41.255", false), ("10.0.0.5", false), ("127.0.0.1", true), ("127.9.9.9", true), ("::1", true),
        ("::ffff:192.168.42.2", true), ("::ffff:192.168.43.2", false), ("::ffff:127.0.0.1", true),
        ("fe80::1", false), ("::c0a8:2a02", false), ("0.0.0.0", false), ("8.8.8.8", false),
    ])
    func peerRule(peer: String, allowed: Bool) throws {
        let decision = try decide(peer, host: "192.168.42.1:8080")
        #expect((decision == .allow) == allowed, "\(peer): \(decision)")
        if !allowed, let address = IPAddress(peer) {
            #expect(decision == .deny(.peerOutsideAllowedSubnets(address.unmapped)))
        }
    }

    /// Host header rules against DNS rebinding.
    @Test(arguments: [
        ("192.168.42.1:8080", true), ("192.168.42.1", true), ("localhost:8080", true), ("LOCALHOST", true),
        ("127.0.0.1:8080", true), ("[::1]:8080", true), ("[::1]", true), ("localhost.:8080", true),
        ("evil.example:8080", false), ("192.168.42.1.nip.io", false), ("192.168.42.2:8080", false),
        ("[::ffff:192.168.42.1]:8080", true), ("", false), ("192.168.42.1:", false), ("192.168.42.1:80:80", false),
        ("[::1", false), ("[::1]x", false), ("::1", false), ("127.0.0.2", false), ("0.0.0.0:8080", false),
        // Non-canonical IPv4 and ports that only look like digits are not this board; a trailing dot is
        // (URL parsers read "192.168.42.1." as that address).
        ("192.168.042.1:8080", false), ("192.168.42.01", false), ("192.168.42.1:８０", false), ("[::1]:", false),
        (":8080", false), ("192.168.42.1.:8080", true), ("LocalHost:8080", true),
    ])
    func hostRule(host: String, allowed: Bool) throws {
        let decision = try decide("192.168.42.2", host: host)
        #expect((decision == .allow) == allowed, "Host \(host): \(decision)")
    }

    @Test func missingHostIsDenied() throws {
        #expect(try decide("192.168.42.2", host: nil) == .deny(.missingHost))
        #expect(try decide("127.0.0.1", host: nil) == .deny(.missingHost))
    }

    @Test func wildcardListenAcceptsTheAddressTheRequestArrivedOn() throws {
        // Listening on [::]: the local address of the connection is what the Host must name.
        #expect(
            try decide("192.168.42.2", host: "192.168.42.1:8080", local: "::ffff:192.168.42.1", listen: ["::"])
                == .allow)
        #expect(
            try decide("192.168.42.2", host: "0.0.0.0:8080", local: "192.168.42.1", listen: ["0.0.0.0"])
                == .deny(.foreignHost("0.0.0.0:8080")))
        #expect(
            try decide("192.168.42.2", host: "192.168.42.9", local: "192.168.42.1", listen: ["::"])
                == .deny(.foreignHost("192.168.42.9")))
    }

    @Test func unixSocketPeersAreAlwaysAllowed() throws {
        #expect(try policy().decide(peer: .unixSocket, localAddress: nil, host: nil) == .allow)
    }

    @Test func denialsDescribeThemselves() {
        #expect(
            AccessPolicy.Denial.peerOutsideAllowedSubnets(IPAddress(v4: 10, 0, 0, 5)).description
                == "peer 10.0.0.5 is outside loopback and the allowed subnets")
        #expect(AccessPolicy.Denial.foreignHost("evil:80").description == "Host 'evil:80' does not name this board")
    }
}
