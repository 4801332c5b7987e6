import NetworkAddress
import Testing

@testable import BoardAPI

/// Who may be served at all: judged when a connection opens (the peer's address, the interface it came in on),
/// before a byte of a request is read; a refused one is answered 403.
@Suite struct ConnectionPolicyTests {
    static let boardAddresses = ["192.168.42.1", "192.168.42.7", "10.0.0.5", "127.0.0.1", "::1"]

    func policy(listen: [String], interface: String? = "aiden0") throws -> AccessPolicy {
        AccessPolicy(
            allowedSubnets: [try Subnet("192.168.42.0/24")], listenAddresses: listen.compactMap { IPAddress($0) },
            interface: interface)
    }

    func decide(_ peer: String, listen: [String]) throws -> AccessPolicy.Decision {
        let own = Self.boardAddresses.compactMap { IPAddress($0) }
        return try policy(listen: listen).decideConnection(peer: try #require(IPAddress(peer))) { address in
            own.contains(address)
        }
    }

    /// With only the ECM listener, nothing on the board is served: not loopback, not a process that connects to
    /// 192.168.42.1 (it arrives from 192.168.42.1) or binds another of the board's addresses. With a loopback
    /// listener (or a wildcard, which includes loopback), local processes are meant to be served.
    @Test(arguments: [
        ("192.168.42.2", ["192.168.42.1"], true), ("::ffff:192.168.42.2", ["192.168.42.1"], true),
        ("192.168.42.1", ["192.168.42.1"], false), ("::ffff:192.168.42.1", ["192.168.42.1"], false),
        ("192.168.42.7", ["192.168.42.1"], false), ("127.0.0.1", ["192.168.42.1"], false),
        ("127.9.9.9", ["192.168.42.1"], false), ("::1", ["192.168.42.1"], false),
        ("::ffff:127.0.0.1", ["192.168.42.1"], false), ("10.99.0.2", ["192.168.42.1"], false),
        ("10.0.0.5", ["192.168.42.1"], false),
        ("192.168.42.1", ["192.168.42.1", "127.0.0.1"], true), ("127.0.0.1", ["192.168.42.1", "127.0.0.1"], true),
        ("192.168.42.7", ["192.168.42.1", "::1"], true), ("192.168.42.2", ["192.168.42.1", "127.0.0.1"], true),
        ("10.99.0.2", ["192.168.42.1", "127.0.0.1"], false), ("127.0.0.1", ["::"], true),
        ("192.168.42.1", ["0.0.0.0"], true), ("10.0.0.5", ["::"], false),
    ])
    func connectionRule(peer: String, listen: [String], allowed: Bool) throws {
        let decision = try decide(peer, listen: listen)
        #expect((decision == .allow) == allowed, "\(peer) with \(listen): \(decision)")
    }

    @Test func refusalsSayWhyAndKeepTheirCode() throws {
        let own = try decide("192.168.42.1", listen: ["192.168.42.1"])
        #expect(own == .deny(.connectionFromTheBoard(IPAddress(v4: 192, 168, 42, 1))))
        guard case let .deny(denial) = own else { return }
        #expect(denial.code == "forbidden")
        #expect(
            denial.description
                == "connection from 192.168.42.1, the board itself: a local process is served only when [http] "
                + "listen has a loopback listener")
        #expect(
            try decide("10.99.0.2", listen: ["192.168.42.1"])
                == .deny(.peerOutsideAllowedSubnets(IPAddress(v4: 10, 99, 0, 2))))
    }

    /// When the board's addresses cannot be read, a peer inside the subnet might be the board itself: refused.
    /// With a loopback listener local processes are served anyway, so the list is not needed.
    @Test func unreadableInterfacesFailClosed() throws {
        let phone = IPAddress(v4: 192, 168, 42, 2)
        #expect(
            try policy(listen: ["192.168.42.1"]).decideConnection(peer: phone) { _ in nil }
                == .deny(.boardAddressesUnknown(phone)))
        #expect(try policy(listen: ["192.168.42.1", "127.0.0.1"]).decideConnection(peer: phone) { _ in nil } == .allow)
        #expect(AccessPolicy.Denial.boardAddressesUnknown(phone).code == "forbidden")
    }

    /// The router's connection refusal: the peer rule, then the arrival rule, as the JSON 403 it is answered with.
    @Test func theRouterAnswersARefusedConnectionWithItsReason() throws {
        let router = PhoneRouter(
            policy: try policy(listen: ["192.168.42.1"]), liveActivityEnabled: true, retention: .seconds(600))
        let local = IPAddress(v4: 192, 168, 42, 1)
        #expect(
            router.refuseConnection(
                peer: IPAddress(v4: 192, 168, 42, 2), local: local, interface: "aiden0", isBoardAddress: { _ in false })
                == nil)
        let elsewhere = try #require(
            router.refuseConnection(
                peer: IPAddress(v4: 192, 168, 42, 2), local: local, interface: "wlan0", isBoardAddress: { _ in false }))
        #expect(elsewhere.response.status == 403)
        #expect(
            String(decoding: elsewhere.response.body, as: UTF8.self)
                == #"{"status":"error","error":{"code":"forbidden","message":"connection from 192.168.42.2 arrived "#
                + #"on wlan0, not on aiden0 ([http] interface)"}}"#)
        let outsider = try #require(
            router.refuseConnection(
                peer: IPAddress(v4: 10, 99, 0, 2), local: local, interface: "wlan0", isBoardAddress: { _ in false }))
        #expect(outsider.denial == .peerOutsideAllowedSubnets(IPAddress(v4: 10, 99, 0, 2)), "the peer rule first")
    }

    /// The board's addresses are read only for a peer that would otherwise be served.
    @Test func readsTheInterfacesOnlyWhenItMatters() throws {
        var asked: [IPAddress] = []
        let policy = try policy(listen: ["192.168.42.1"])
        _ = policy.decideConnection(peer: IPAddress(v4: 10, 99, 0, 2)) {
            asked.append($0); return false
        }
        _ = policy.decideConnection(peer: IPAddress(v4: 127, 0, 0, 1)) {
            asked.append($0); return false
        }
        #expect(asked.isEmpty)
        _ = policy.decideConnection(peer: IPAddress(v4: 192, 168, 42, 2)) {
            asked.append($0); return false
        }
        #expect(asked == [IPAddress(v4: 192, 168, 42, 2)])
    }

    /// Connections to the ECM listener must arrive on `[http] interface`: a stranger on another link in the same
    /// subnet is refused. Loopback connections and a policy without an interface take any.
    @Test(
        arguments: [
            ("192.168.42.2", "192.168.42.1", "aiden0", true), ("192.168.42.2", "192.168.42.1", "wlan0", false),
            ("192.168.42.2", "192.168.42.1", nil, false), ("192.168.42.2", nil, "wlan0", false),
            ("::ffff:192.168.42.2", "::ffff:192.168.42.1", "aiden0", true),
            ("127.0.0.1", "127.0.0.1", "lo", true), ("::ffff:127.0.0.1", "::ffff:127.0.0.1", "lo", true),
            ("::1", "::1", nil, true),
        ] as [(String, String?, String?, Bool)])
    func arrivalRule(peer: String, local: String?, interface: String?, allowed: Bool) throws {
        let decision = try policy(listen: ["192.168.42.1", "127.0.0.1"]).decideArrival(
            peer: try #require(IPAddress(peer)), local: local.flatMap { IPAddress($0) }, interface: interface)
        #expect((decision == .allow) == allowed, "\(peer) → \(local ?? "?") on \(interface ?? "?"): \(decision)")
    }

    @Test func withoutAnInterfaceEveryArrivalIsTaken() throws {
        let policy = try policy(listen: ["192.168.42.1"], interface: nil)
        #expect(
            policy.decideArrival(
                peer: IPAddress(v4: 192, 168, 42, 2), local: IPAddress(v4: 192, 168, 42, 1), interface: "wlan0")
                == .allow)
    }

    @Test func theArrivalRefusalNamesBothInterfaces() throws {
        let decision = try policy(listen: ["192.168.42.1"]).decideArrival(
            peer: IPAddress(v4: 192, 168, 42, 9), local: IPAddress(v4: 192, 168, 42, 1), interface: "wlan0")
        guard case let .deny(denial) = decision else {
            Issue.record("a connection from another interface was taken")
            return
        }
        #expect(denial.description == "connection from 192.168.42.9 arrived on wlan0, not on aiden0 ([http] interface)")
    }
}
