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

    /// curl's status code for a GET from inside a namespace.
    func statusCode(from namespace: String, _ url: String, host: String? = nil) throws -> (code: String, body: String) {
        var arguments = ["netns", "exec", namespace, "curl", "-s", "--max-time", "5", "-w", "\n%{http_code}"]
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

        let board = try BoardProcess(listen: ["192.168.42.1:8080", "127.0.0.1:8080"])
        try board.start(wrapper: ["/usr/sbin/ip", "netns", "exec", "\(prefix)-board"])
        defer { board.stop() }
        _ = try board.agent("POST", "/v1/tasks", body: #"{"task_title":"Seen by the phone"}"#)

        let phone = try statusCode(from: "\(prefix)-phone", "http://192.168.42.1:8080/api/live-activity/current")
        #expect(phone.code == "200")
        #expect(phone.body.contains("Seen by the phone"))

        let outsider = try statusCode(from: "\(prefix)-outsider", "http://192.168.42.1:8080/api/live-activity/current")
        #expect(outsider.code == "403")
        #expect(outsider.body.contains(#""code":"forbidden""#))
        #expect(outsider.body.contains("10.99.0.2") && !outsider.body.contains("Seen by the phone"))
        #expect(try statusCode(from: "\(prefix)-outsider", "http://192.168.42.1:8080/status").code == "403")

        let loopback = try statusCode(from: "\(prefix)-board", "http://127.0.0.1:8080/status")
        #expect(loopback.code == "200")

        let rebinding = try statusCode(from: "\(prefix)-phone", "http://192.168.42.1:8080/status", host: "evil.example")
        #expect(rebinding.code == "403")

        // The refusal is logged with the peer address.
        #expect(board.log.contains("403 GET /api/live-activity/current from 10.99.0.2"))
    }
}
