import Foundation
import Testing

/// The access rules on a real network: namespaces the test creates (scripts/netns-lab) with the
/// board at 192.168.42.1, the phone at 192.168.42.2 on the same link, and an outsider at 10.99.0.2
/// routed in from another subnet. Nothing is bound or sent in the root namespace.
@Suite(.serialized) struct NetworkNamespaceTests {
    static let why = "needs root, iproute2 and curl to build network namespaces (CI runs as root)"

    static var available: Bool {
        getuid() == 0 && FileManager.default.isExecutableFile(atPath: "/usr/sbin/ip")
            && FileManager.default.isExecutableFile(atPath: "/usr/bin/curl")
    }

    static var labScript: String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("scripts/netns-lab").path
    }

    /// curl's status code for a GET from inside a namespace (and the body, with the answer's header lines first
    /// when `headers`).
    func statusCode(
        from namespace: String, _ url: String, host: String? = nil, headers: Bool = false
    ) throws -> (code: String, body: String) {
        var arguments = ["netns", "exec", namespace, "curl", "-s", "--max-time", "5", "-w", "\n%{http_code}"]
        if headers { arguments.append("-i") }
        if let host { arguments += ["-H", "Host: \(host)"] }
        let result = try runCommand("/usr/sbin/ip", arguments + [url])
        let lines = result.output.split(separator: "\n", omittingEmptySubsequences: false)
        return (String(lines.last ?? ""), lines.dropLast().joined(separator: "\n"))
    }

    @Test(.enabled(if: available, Comment(rawValue: why)))
    func phoneIsServedOutsiderIsRefusedLoopbackIsServed() throws {
        let prefix = "ab\(getpid() % 100_000)"
        let up = try runCommand("/bin/bash", [Self.labScript, "up", prefix])
        defer { _ = try? runCommand("/bin/bash", [Self.labScript, "down", prefix]) }
        try #require(up.status == 0, "netns-lab up failed: \(up.error)")

        let board = try BoardProcess(listen: ["192.168.42.1:8080", "127.0.0.1:8080"], interface: "eth0")
        try board.start(wrapper: ["/usr/sbin/ip", "netns", "exec", "\(prefix)-board"])
        defer { board.stop() }
        _ = try board.agent("POST", "/v1/tasks", body: #"{"task_title":"Seen by the phone"}"#)

        let phone = try statusCode(from: "\(prefix)-phone", "http://192.168.42.1:8080/api/live-activity/current")
        #expect(phone.code == "200")
        #expect(phone.body.contains("Seen by the phone"))

        // The outsider is answered 403 on every path, with the JSON error and Connection: close, and never routed.
        for path in ["/api/live-activity/current", "/status", "/api/live-activity/events", "/nowhere"] {
            let outsider = try statusCode(
                from: "\(prefix)-outsider", "http://192.168.42.1:8080\(path)", headers: true)
            #expect(outsider.code == "403", "\(path): \(outsider)")
            #expect(outsider.body.lowercased().contains("connection: close"), "\(outsider.body)")
            #expect(
                outsider.body.hasSuffix(
                    #"{"status":"error","error":{"code":"forbidden","message":"peer 10.99.0.2 is outside loopback "#
                        + #"and the allowed subnets"}}"#), "\(outsider.body)")
            #expect(!outsider.body.contains("Seen by the phone"))
        }

        let loopback = try statusCode(from: "\(prefix)-board", "http://127.0.0.1:8080/status")
        #expect(loopback.code == "200")

        let rebinding = try statusCode(from: "\(prefix)-phone", "http://192.168.42.1:8080/status", host: "evil.example")
        #expect(rebinding.code == "403")
        #expect(rebinding.body.contains(#""code":"forbidden""#), "a rebinding Host is still a JSON 403: \(rebinding)")

        // The refusals are logged with the peer address.
        #expect(
            board.log.contains(
                "refused a connection from 10.99.0.2: peer 10.99.0.2 is outside loopback and the allowed subnets"))
        #expect(board.log.contains("403 GET /status from 192.168.42.2: Host 'evil.example' does not name this board"))
    }

    /// A board namespace (192.168.42.1 on eth0) and a phone host namespace whose end of the veth is named
    /// aidenboard0, as udev names the board's ECM interface. Only the veth pair exists in the root namespace,
    /// for an instant.
    func makeLink(_ prefix: String) throws -> (board: String, host: String) {
        let board = "\(prefix)-b"
        let host = "\(prefix)-h"
        let tag = String(prefix.suffix(6))
        let script = """
            set -e
            for ns in \(board) \(host); do ip netns add $ns; ip -n $ns link set lo up; done
            ip link add pb\(tag) type veth peer name ph\(tag)
            ip link set pb\(tag) netns \(board) name eth0
            ip link set ph\(tag) netns \(host) name aidenboard0
            ip -n \(board) addr add 192.168.42.1/24 dev eth0
            ip -n \(board) link set eth0 up
            ip -n \(host) addr add 192.168.42.2/24 dev aidenboard0
            ip -n \(host) link set aidenboard0 up
            for _ in $(seq 1 50); do
                ip netns exec \(host) ping -c1 -W1 192.168.42.1 >/dev/null 2>&1 && exit 0
                sleep 0.1
            done
            exit 1
            """
        let result = try runCommand("/bin/bash", ["-c", script])
        try #require(result.status == 0, "the namespaces did not come up: \(result.error)")
        return (board, host)
    }

    func inNamespace(_ namespace: String, _ script: String) throws {
        let result = try runCommand(
            "/usr/sbin/ip", ["netns", "exec", namespace, "/bin/bash", "-c", "set -e\n" + script])
        try #require(result.status == 0, "\(script): \(result.error)")
    }

    /// `aiden-phone doctor` on a phone host: the link as it should be, then Android-style tethering in the
    /// same subnet, then a host address outside the board's allowed subnet (the board answers 403).
    @Test(.enabled(if: available, Comment(rawValue: why)))
    func phoneDoctorSeesTheLinkACollisionAndARefusal() throws {
        let prefix = "pd\(getpid() % 100_000)"
        defer { _ = try? runCommand("/bin/bash", ["-c", "ip netns del \(prefix)-b; ip netns del \(prefix)-h"]) }
        let (boardNamespace, host) = try makeLink(prefix)
        let board = try BoardProcess(listen: ["192.168.42.1:8080"], interface: "eth0")
        try board.start(wrapper: ["/usr/sbin/ip", "netns", "exec", boardNamespace])
        defer { board.stop() }
        let scratch = try Scratch("aiden-doctor-netns")
        let config = scratch.path + "/phone.toml"
        try """
        [board]
        url = "http://192.168.42.1:8080"
        [wake]
        transport = "loopback"
        [state]
        directory = "\(scratch.path)/state"
        """.write(toFile: config, atomically: true, encoding: .utf8)
        let phone = try #require(Products.path("aiden-phone"))
        func doctor() throws -> CommandResult {
            try runCommand("/usr/sbin/ip", ["netns", "exec", host, phone, "doctor", "--config", config])
        }

        let healthy = try doctor()
        #expect(
            healthy.output.contains(
                "ok: aidenboard0 is up with carrier and has 192.168.42.2/24, in the board's subnet (board 192.168.42.1)"
            ),
            "\(healthy.output)")
        #expect(
            healthy.output.contains(
                "ok: no other interface has an address or a route in the board's subnet 192.168.42.0/24"))
        #expect(healthy.output.contains("ok: GET http://192.168.42.1:8080/status answers 200 (board instance "))

        // A veth pair made inside the namespace stands in for the tethering phone's USB network (no dummy
        // module needed).
        try inNamespace(
            host,
            """
            ip link add usb1 type veth peer name usb1peer
            ip addr add 192.168.42.129/24 dev usb1
            ip link set usb1peer up
            ip link set usb1 up
            """)
        let tethered = try doctor()
        #expect(tethered.status == 1)
        #expect(
            tethered.output.contains(
                "problem: usb1 has 192.168.42.129/24, inside the ECM subnet 192.168.42.0/24: traffic for the board link "
                    + "may go to usb1 (Android USB tethering uses 192.168.42.0/24) (fix: turn off USB tethering"),
            "\(tethered.output)")
        #expect(tethered.output.components(separatedBy: "usb1 has").count == 2, "named once, not again for its route")
        #expect(tethered.output.contains("ok: aidenboard0 is up with carrier"))

        try inNamespace(
            host,
            """
            ip link del usb1
            ip addr del 192.168.42.2/24 dev aidenboard0
            ip addr add 10.77.0.2/24 dev aidenboard0
            ip route add 192.168.42.1/32 dev aidenboard0
            """)
        try inNamespace(boardNamespace, "ip route add 10.77.0.0/24 dev eth0")
        let refused = try doctor()
        #expect(refused.status == 1)
        #expect(
            refused.output.contains(
                "problem: aidenboard0 has no address in the board's subnet (the board is 192.168.42.1); it has "
                    + "10.77.0.2/24"), "\(refused.output)")
        // The board answers 403 (10.77.0.2 is outside its allowed subnets), and says why.
        #expect(
            refused.output.contains(
                "problem: GET http://192.168.42.1:8080/status answered 403: the board refuses this host, whose address "
                    + "toward it is outside the board's allowed subnets; the board says: peer 10.77.0.2 is outside "
                    + "loopback and the allowed subnets"),
            "\(refused.output)")
        #expect(board.log.contains("refused a connection from 10.77.0.2: peer 10.77.0.2 is outside"))
    }
}
