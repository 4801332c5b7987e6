import Foundation
import Testing

/// Who the ECM listener serves, on real links between network namespaces the tests create (veth pairs with
/// 192.168.42.x only inside them): not a process on the board itself unless a loopback listener is configured,
/// not a stranger on another of the board's links that uses the same subnet; and the phone's requests leave
/// through its end of the link even when another network in the subnet would take them.
@Suite(.serialized) struct ListenerNamespaceTests {
    static let why = NetworkNamespaceTests.why
    static var available: Bool { NetworkNamespaceTests.available }

    /// curl from inside a namespace: the HTTP status ("000" when the connection got no answer) and the body.
    func get(from namespace: String, _ url: String) throws -> (code: String, body: String) {
        let result = try runCommand(
            "/usr/sbin/ip",
            ["netns", "exec", namespace, "curl", "-s", "--max-time", "5", "-w", "\n%{http_code}", url])
        let lines = result.output.split(separator: "\n", omittingEmptySubsequences: false)
        return (String(lines.last ?? ""), lines.dropLast().joined(separator: "\n"))
    }

    func shell(_ script: String) throws {
        let result = try runCommand("/bin/bash", ["-c", "set -e\n" + script])
        try #require(result.status == 0, "\(script): \(result.error)")
    }

    @Test(.enabled(if: available, Comment(rawValue: why)))
    func aProcessOnTheBoardIsRefusedUnlessALoopbackListenerIsConfigured() throws {
        let prefix = "ls\(getpid() % 100_000)"
        defer { _ = try? runCommand("/bin/bash", ["-c", "ip netns del \(prefix)-b; ip netns del \(prefix)-h"]) }
        let (boardNamespace, host) = try NetworkNamespaceTests().makeLink(prefix)
        let wrapper = ["/usr/sbin/ip", "netns", "exec", boardNamespace]

        let board = try BoardProcess(listen: ["192.168.42.1:8080"], interface: "eth0")
        try board.start(wrapper: wrapper)
        #expect(try get(from: host, "http://192.168.42.1:8080/status").code == "200")
        let local = try get(from: boardNamespace, "http://192.168.42.1:8080/api/live-activity/current")
        #expect(local.code == "403", "a local process is answered 403: \(local)")
        #expect(local.body.contains(#""code":"forbidden""#) && local.body.contains("the board itself"), "\(local)")
        #expect(
            board.log.contains(
                "refused a connection from 192.168.42.1: connection from 192.168.42.1, the board itself: a local "
                    + "process is served only when [http] listen has a loopback listener"), "\(board.log)")
        board.stop()

        let withLoopback = try BoardProcess(listen: ["192.168.42.1:8080", "127.0.0.1:8080"], interface: "eth0")
        try withLoopback.start(wrapper: wrapper)
        defer { withLoopback.stop() }
        #expect(try get(from: boardNamespace, "http://192.168.42.1:8080/status").code == "200")
        #expect(try get(from: boardNamespace, "http://127.0.0.1:8080/status").code == "200")
        #expect(try get(from: host, "http://192.168.42.1:8080/status").code == "200")
    }

    /// The board also has a Wi-Fi-like link (wlan0) where a stranger uses an address of the ECM subnet: it passes
    /// the subnet rule, so only the interface its connection arrived on tells it from the phone.
    @Test(.enabled(if: available, Comment(rawValue: why)))
    func aStrangerOnAnotherLinkInTheSubnetIsRefused() throws {
        let prefix = "lw\(getpid() % 100_000)"
        let stranger = "\(prefix)-s"
        defer {
            _ = try? runCommand(
                "/bin/bash", ["-c", "ip netns del \(prefix)-b; ip netns del \(prefix)-h; ip netns del \(stranger)"])
        }
        let (boardNamespace, host) = try NetworkNamespaceTests().makeLink(prefix)
        let tag = String(prefix.suffix(6))
        try shell(
            """
            ip netns add \(stranger)
            ip -n \(stranger) link set lo up
            ip link add wb\(tag) type veth peer name ws\(tag)
            ip link set wb\(tag) netns \(boardNamespace) name wlan0
            ip link set ws\(tag) netns \(stranger) name wlan0
            ip -n \(boardNamespace) addr add 10.5.0.1/24 dev wlan0
            ip -n \(boardNamespace) link set wlan0 up
            ip -n \(boardNamespace) route add 192.168.42.77/32 dev wlan0
            ip -n \(stranger) addr add 192.168.42.77/32 dev wlan0
            ip -n \(stranger) link set wlan0 up
            ip -n \(stranger) route add 192.168.42.1/32 dev wlan0
            for _ in $(seq 1 50); do
                ip netns exec \(stranger) ping -c1 -W1 192.168.42.1 >/dev/null 2>&1 && exit 0
                sleep 0.1
            done
            exit 1
            """)
        let board = try BoardProcess(listen: ["192.168.42.1:8080"], interface: "eth0")
        try board.start(wrapper: ["/usr/sbin/ip", "netns", "exec", boardNamespace])
        defer { board.stop() }
        _ = try board.agent("POST", "/v1/tasks", body: #"{"task_title":"Only for the phone"}"#)

        let refused = try get(from: stranger, "http://192.168.42.1:8080/api/live-activity/current")
        #expect(refused.code == "403", "\(refused)")
        #expect(
            refused.body
                == #"{"status":"error","error":{"code":"forbidden","message":"connection from 192.168.42.77 arrived "#
                + #"on wlan0, not on eth0 ([http] interface)"}}"#)
        #expect(!refused.body.contains("Only for the phone"))
        #expect(
            board.log.contains(
                "refused a connection from 192.168.42.77: connection from 192.168.42.77 arrived on wlan0, not on eth0 "
                    + "([http] interface)"),
            "\(board.log)")
        let phone = try get(from: host, "http://192.168.42.1:8080/api/live-activity/current")
        #expect(phone.code == "200")
        #expect(phone.body.contains("Only for the phone"))
    }

    /// On the phone host, Android-style tethering brings a second network in the subnet (usb1) with a more
    /// specific route to 192.168.42.1: the routing table sends the board's traffic there. The phone's requests are
    /// bound to aidenboard0 ([board] interface), so they still reach the board; unbound (`interface = ""`), they
    /// go to the stranger, where nothing answers.
    @Test(.enabled(if: available, Comment(rawValue: why)))
    func thePhonesRequestsLeaveThroughItsEndOfTheLink() throws {
        let prefix = "lt\(getpid() % 100_000)"
        let tether = "\(prefix)-t"
        defer {
            _ = try? runCommand(
                "/bin/bash", ["-c", "ip netns del \(prefix)-b; ip netns del \(prefix)-h; ip netns del \(tether)"])
        }
        let (boardNamespace, host) = try NetworkNamespaceTests().makeLink(prefix)
        let tag = String(prefix.suffix(6))
        try shell(
            """
            ip netns add \(tether)
            ip -n \(tether) link set lo up
            ip link add ub\(tag) type veth peer name ut\(tag)
            ip link set ub\(tag) netns \(host) name usb1
            ip link set ut\(tag) netns \(tether) name eth0
            ip -n \(host) addr add 192.168.42.129/24 dev usb1
            ip -n \(host) link set usb1 up
            ip -n \(host) route add 192.168.42.1/32 dev usb1
            ip -n \(tether) addr add 192.168.42.1/24 dev eth0
            ip -n \(tether) link set eth0 up
            for _ in $(seq 1 50); do
                ip netns exec \(host) ping -c1 -W1 -I usb1 192.168.42.1 >/dev/null 2>&1 && exit 0
                sleep 0.1
            done
            exit 1
            """)
        let board = try BoardProcess(listen: ["192.168.42.1:8080"], interface: "eth0")
        try board.start(wrapper: ["/usr/sbin/ip", "netns", "exec", boardNamespace])
        defer { board.stop() }
        let instance = try #require(try board.agent("GET", "/v1/status").json?["instance_id"] as? String)
        let scratch = try Scratch("aiden-phone-bound")
        let phone = try #require(Products.path("aiden-phone"))
        func doctor(interface: String?) throws -> CommandResult {
            let config = scratch.path + "/phone.toml"
            try """
            [board]
            url = "http://192.168.42.1:8080"
            \(interface.map { "interface = \"\($0)\"" } ?? "")
            [wake]
            transport = "loopback"
            [state]
            directory = "\(scratch.path)/state"
            """.write(toFile: config, atomically: true, encoding: .utf8)
            return try runCommand("/usr/sbin/ip", ["netns", "exec", host, phone, "doctor", "--config", config])
        }
        let bound = try doctor(interface: nil)
        #expect(
            bound.output.contains("ok: GET http://192.168.42.1:8080/status answers 200 (board instance \(instance))"),
            "\(bound.output)")
        let unbound = try doctor(interface: "")
        #expect(
            unbound.output.contains("problem: GET http://192.168.42.1:8080/status got no answer"), "\(unbound.output)")
    }
}
