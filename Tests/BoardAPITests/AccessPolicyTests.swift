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

    func decidePairing(
        _ peer: String, local: String? = "192.168.42.1", headers: [String: String] = [:],
        boardAddresses: [String] = []
    ) throws -> AccessPolicy.Decision {
        let request = HTTPRequest(
            method: "POST", path: "/api/bluetooth/pairing/start",
            headers: ["host": "192.168.42.1:8080"].merging(headers) { $1 },
            peer: .ip(try #require(IPAddress(peer))), localAddress: local.flatMap { IPAddress($0) })
        return try policy().decidePairing(request, boardAddresses: boardAddresses.compactMap { IPAddress($0) })
    }

    /// Only the phone at the other end of the link: not loopback, not the board's own addresses, not outside
    /// the subnet; mapped IPv6 judged as IPv4 on either side.
    @Test(arguments: [
        ("192.168.42.2", "192.168.42.1", true), ("::ffff:192.168.42.2", "::ffff:192.168.42.1", true),
        ("::ffff:192.168.42.2", "192.168.42.1", true), ("192.168.42.254", "192.168.42.1", true),
        // A process on the board: loopback, or the board's address the request arrived on.
        ("127.0.0.1", "127.0.0.1", false), ("127.0.0.1", "192.168.42.1", false), ("127.9.9.9", "127.0.0.1", false),
        ("::1", "::1", false), ("::ffff:127.0.0.1", "::ffff:127.0.0.1", false),
        ("192.168.42.1", "192.168.42.1", false), ("::ffff:192.168.42.1", "192.168.42.1", false),
        ("192.168.42.1", "::ffff:192.168.42.1", false),
        // Outsiders (the access policy refuses them first; this rule does not rely on it).
        ("10.0.0.9", "192.168.42.1", false), ("192.168.43.2", "192.168.42.1", false), ("fe80::1", "fe80::2", false),
        ("0.0.0.0", "192.168.42.1", false),
    ])
    func pairingPeerRule(peer: String, local: String, allowed: Bool) throws {
        let decision = try decidePairing(peer, local: local)
        #expect((decision == .allow) == allowed, "\(peer) → \(local): \(decision)")
        if case let .deny(denial) = decision { #expect(denial.code == "not_ecm_peer", "\(denial)") }
    }

    @Test func pairingFromAnotherAddressOfTheBoardIsRefused() throws {
        // The board holds 192.168.42.7 too: a process there binding it still comes from the board.
        let boardAddresses = ["127.0.0.1", "::1", "192.168.42.1", "192.168.42.7", "fe80::1"]
        #expect(
            try decidePairing("192.168.42.7", boardAddresses: boardAddresses)
                == .deny(.pairingFromTheBoard(IPAddress(v4: 192, 168, 42, 7))))
        #expect(
            try decidePairing("::ffff:192.168.42.7", boardAddresses: boardAddresses)
                == .deny(.pairingFromTheBoard(IPAddress(v4: 192, 168, 42, 7))))
        #expect(try decidePairing("192.168.42.2", boardAddresses: boardAddresses) == .allow)
        #expect(
            try decidePairing("192.168.42.1", local: "192.168.42.1")
                == .deny(.pairingFromTheBoard(IPAddress(v4: 192, 168, 42, 1))))
    }

    @Test func pairingNeedsAKnownLocalAddressAndAnIPPeer() throws {
        #expect(
            try decidePairing("192.168.42.2", local: nil)
                == .deny(.pairingLocalAddressUnknown(IPAddress(v4: 192, 168, 42, 2))))
        let unix = HTTPRequest(method: "POST", path: "/api/bluetooth/pairing/start", peer: .unixSocket)
        #expect(try policy().decidePairing(unix, boardAddresses: []) == .deny(.pairingOffTheLink(.unixSocket)))
    }

    /// Not cross-site: Origin, when sent, is the board's own; Sec-Fetch-Site, when sent, same-origin or none.
    @Test(arguments: [
        ([:], true), (["origin": "http://192.168.42.1:8080"], true), (["origin": "HTTP://192.168.42.1:8080"], true),
        (["sec-fetch-site": "same-origin"], true), (["sec-fetch-site": "none"], true),
        (["sec-fetch-site": "None"], true),
        (["origin": "http://192.168.42.1:8080", "sec-fetch-site": "same-origin"], true),
        (["origin": "http://evil.example"], false), (["origin": "null"], false), (["origin": ""], false),
        (["origin": "https://192.168.42.1:8080"], false), (["origin": "http://192.168.42.1"], false),
        (["origin": "http://192.168.42.1:8080/"], false), (["origin": "http://localhost:8080"], false),
        (["sec-fetch-site": "cross-site"], false), (["sec-fetch-site": "same-site"], false),
        (["sec-fetch-site": ""], false),
        (["origin": "http://192.168.42.1:8080", "sec-fetch-site": "cross-site"], false),
    ])
    func pairingIsNeverCrossSite(headers: [String: String], allowed: Bool) throws {
        let decision = try decidePairing("192.168.42.2", headers: headers)
        #expect((decision == .allow) == allowed, "\(headers): \(decision)")
        if case let .deny(denial) = decision { #expect(denial.code == "cross_site", "\(denial)") }
    }

    @Test func pairingDenialsSayWhichRuleAndQuoteSafely() throws {
        #expect(
            AccessPolicy.Denial.pairingFromTheBoard(IPAddress(v4: 127, 0, 0, 1)).description
                == "only the phone at the other end of the USB link may open a pairing window; 127.0.0.1 is an "
                + "address of the board itself")
        let hostile = "http://evil.example/" + String(repeating: "x", count: 500) + "\u{1B}[2J"
        guard case let .deny(denial) = try decidePairing("192.168.42.2", headers: ["origin": hostile]) else {
            Issue.record("a hostile Origin was allowed")
            return
        }
        #expect(denial.description.count < 300 && !denial.description.contains("\u{1B}"))
        #expect(denial.description.hasPrefix("Origin 'http://evil.example/xxx"))
        #expect(denial.description.hasSuffix("(http://192.168.42.1:8080): a web page may not open a pairing window"))
        #expect(AccessPolicy.Denial.peerOutsideAllowedSubnets(IPAddress(v4: 10, 0, 0, 5)).code == "forbidden")
    }

    /// A quoted header is shown by the one rule (`ControlCharacter.shown`): C1 and bidi controls are escaped like
    /// C0 ones (they used to pass through, only C0 and DEL became `?`).
    @Test func aQuotedHeaderIsEscapedByTheOneRule() throws {
        let hostile = "http://evil.example/\u{9B}2J\u{202E}gnp"
        guard case let .deny(denial) = try decidePairing("192.168.42.2", headers: ["origin": hostile]) else {
            Issue.record("a hostile Origin was allowed")
            return
        }
        #expect(denial.description.hasPrefix(#"Origin 'http://evil.example/\u{9b}2J\u{202e}gnp' is not"#))
    }

    @Test func denialsDescribeThemselves() {
        #expect(
            AccessPolicy.Denial.peerOutsideAllowedSubnets(IPAddress(v4: 10, 0, 0, 5)).description
                == "peer 10.0.0.5 is outside loopback and the allowed subnets")
        #expect(AccessPolicy.Denial.foreignHost("evil:80").description == "Host 'evil:80' does not name this board")
    }
}
