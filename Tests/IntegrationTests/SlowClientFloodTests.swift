import Foundation
import Testing

/// The fault suite's slow-client item: 1,000 slow or idle connections against the ECM listener, from several
/// source addresses, and the phone is still served; the board's descriptors stay bounded. In namespaces the
/// test makes (scripts/netns-lab): the flood comes from four addresses on the link (the router's bridge, as a
/// host with many addresses would), from the outsider's subnet, and from the board itself.
///
/// Short form (CI): 1,000 connections for 12 s. Long form: `AIDEN_FLOOD_CONNECTIONS=10000
/// AIDEN_FLOOD_SECONDS=300 swift test --skip-build --filter SlowClientFloodTests`. The phone's response times,
/// the descriptors and the RSS are printed, not asserted (timings are never asserted).
@Suite(.serialized) struct SlowClientFloodTests {
    static let why = NetworkNamespaceTests.why
    static var available: Bool {
        NetworkNamespaceTests.available && FileManager.default.isExecutableFile(atPath: "/usr/bin/python3")
    }

    static var flooder: String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures/slow_clients.py")
            .path
    }

    static func setting(_ name: String, default value: Int) -> Int {
        ProcessInfo.processInfo.environment[name].flatMap { Int($0) } ?? value
    }

    /// Starts a flooder inside a namespace; its one JSON line of counts is read when it ends.
    func flood(
        in namespace: String, sources: [String], connections: Int, seconds: Int, trickle: Double
    ) throws -> (Process, Pipe) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/sbin/ip")
        process.arguments = [
            "netns", "exec", namespace, "/usr/bin/python3", Self.flooder, "--target", "192.168.42.1:8080",
            "--sources", sources.joined(separator: ","), "--connections", "\(connections)",
            "--seconds", "\(seconds)", "--trickle-seconds", "\(trickle)",
        ]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        return (process, output)
    }

    static func descriptors(of pid: Int32) -> Int {
        (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd").count) ?? -1
    }

    static func residentKiB(of pid: Int32) -> Int {
        let status = (try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)) ?? ""
        let line = status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") } ?? ""
        return Int(line.split(separator: " ").dropFirst().first ?? "") ?? -1
    }

    @Test(.enabled(if: available, Comment(rawValue: why)), .timeLimit(.minutes(15)))
    func thePhoneIsServedThroughAThousandSlowConnections() throws {
        let connections = Self.setting("AIDEN_FLOOD_CONNECTIONS", default: 1_000)
        let seconds = Self.setting("AIDEN_FLOOD_SECONDS", default: 12)
        let prefix = "fl\(getpid() % 100_000)"
        let up = try runCommand("/bin/bash", [NetworkNamespaceTests.labScript, "up", prefix])
        defer { _ = try? runCommand("/bin/bash", [NetworkNamespaceTests.labScript, "down", prefix]) }
        try #require(up.status == 0, "netns-lab up failed: \(up.error)")
        let attackers = (10...13).map { "192.168.42.\($0)" }
        for address in attackers {
            let added = try runCommand(
                "/usr/sbin/ip", ["-n", "\(prefix)-router", "addr", "add", "\(address)/24", "dev", "br0"])
            try #require(added.status == 0, "\(added.error)")
        }

        let board = try BoardProcess(listen: ["192.168.42.1:8080"], interface: "eth0", extra: "")
        try board.start(wrapper: ["/usr/sbin/ip", "netns", "exec", "\(prefix)-board"])
        defer { board.stop() }
        _ = try board.agent("POST", "/v1/tasks", body: #"{"task_title":"Through the flood"}"#)
        let pid = try #require(board.process?.processIdentifier)
        let baseline = (fds: Self.descriptors(of: pid), rss: Self.residentKiB(of: pid))

        // Most from the link (trickling), some idle from the outsider's subnet and from the board itself.
        let onLink = connections * 7 / 10
        let outside = connections * 2 / 10
        let floods = [
            try flood(in: "\(prefix)-router", sources: attackers, connections: onLink, seconds: seconds, trickle: 1),
            try flood(
                in: "\(prefix)-outsider", sources: ["10.99.0.2"], connections: outside, seconds: seconds, trickle: 0),
            try flood(
                in: "\(prefix)-board", sources: ["192.168.42.1"], connections: connections - onLink - outside,
                seconds: seconds, trickle: 0),
        ]
        var served: [(code: String, seconds: String)] = []
        var peakFDs = baseline.fds
        var peakRSS = baseline.rss
        let end = Date().addingTimeInterval(Double(seconds) - 1)
        usleep(1_500_000)
        while Date() < end {
            let result = try runCommand(
                "/usr/sbin/ip",
                [
                    "netns", "exec", "\(prefix)-phone", "curl", "-s", "--max-time", "5", "-w",
                    "\n%{http_code} %{time_total}",
                    "http://192.168.42.1:8080/api/live-activity/current",
                ])
            let last = result.output.split(separator: "\n").last.map(String.init) ?? ""
            let parts = last.split(separator: " ").map(String.init)
            served.append((parts.first ?? "", parts.count > 1 ? parts[1] : "?"))
            #expect(result.output.contains("Through the flood"), "the phone's GET during the flood: \(result.output)")
            peakFDs = max(peakFDs, Self.descriptors(of: pid))
            peakRSS = max(peakRSS, Self.residentKiB(of: pid))
            usleep(500_000)
        }
        var counts: [String] = []
        for (process, output) in floods {
            process.waitUntilExit()
            counts.append(String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self))
        }
        // Once the flood is over, what it held is given back (a bounded wait: each is closed when its flooder's end
        // closes, or at its deadline).
        var after = Self.descriptors(of: pid)
        for _ in 0..<40 where after > baseline.fds + 2 {
            usleep(250_000)
            after = Self.descriptors(of: pid)
        }
        print(
            """
            slow-client flood: \(connections) connections for \(seconds) s (\(onLink) trickling from \
            \(attackers.count) addresses on the link, \(outside) idle from 10.99.0.2, the rest idle from the board)
              phone GETs (status, seconds): \(served.map { "\($0.code) \($0.seconds)" }.joined(separator: ", "))
              board descriptors: \(baseline.fds) before, \(peakFDs) at most during, \(after) after
              board RSS KiB: \(baseline.rss) before, \(peakRSS) at most during, \(Self.residentKiB(of: pid)) after
              flooders: \(counts.map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }.joined(separator: " | "))
            """)
        #expect(!served.isEmpty)
        #expect(served.allSatisfy { $0.code == "200" }, "\(served)")
        // 64 served and 16 refused connections per listener at most, whatever is thrown at it, and the 24 of
        // headroom the loop keeps for connections that bring their request (cut ones are closed at once).
        #expect(peakFDs <= baseline.fds + 64 + 16 + 24 + 4, "descriptors: \(baseline.fds) → \(peakFDs)")
        #expect(after <= baseline.fds + 2, "descriptors after the flood: \(baseline.fds) → \(after)")
        // Refused when they open and logged, the flood of them rate-limited.
        #expect(board.log.contains("refused a connection from "), "\(board.log.suffix(2_000))")
        #expect(board.log.contains("more refused since the last report"))
    }
}
