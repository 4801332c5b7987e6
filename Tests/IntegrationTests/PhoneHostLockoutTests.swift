import Foundation
import Testing

/// No process on the phone host can lock the phone client out: every process there is the one peer
/// 192.168.42.2, so the board's per-peer admission must never make the phone's new connection wait behind
/// connections another process holds (docs/security.md, "The phone host cannot lock the phone out"). In
/// network namespaces the test makes (scripts/netns-lab): an unprivileged process in the phone's namespace
/// holds and reopens as many connections as it can (up to 6,000; here it keeps 4,000 to 5,000 open at once, the
/// board's 4,096-deep accept queue full), idle, slowloris and rapid reopen, while the phone side
/// fetches `/current` and answers a task as the phone client does, each served within 1 s of its first attempt.
/// As the client, an attempt whose connection was closed under it before its request was read (one accepted
/// before its request came, docs/security.md says when) is made again: a fetch 250 ms
/// later (the fetch scheduler's first backoff), an answer at once with the same `answer_id`, three attempts at
/// most; the second bounds them all. Before the eviction, 4 held sockets sufficed: every fetch and answer failed;
/// before the board's own accept loop, 6,000 made some miss the second (2 of 16 answers in one run).
@Suite(.serialized) struct PhoneHostLockoutTests {
    static let why = NetworkNamespaceTests.why
    static var available: Bool {
        NetworkNamespaceTests.available && FileManager.default.isExecutableFile(atPath: "/usr/bin/python3")
            && FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv")
    }

    static var hog: String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures/phone_host_hog.py")
            .path
    }

    /// What one request got: its last status, and every attempt as curl saw it.
    struct Served {
        var code: String
        var attempts: [String]
    }

    /// A request as the phone client makes it, within 1 s of its first attempt: curl in the phone's namespace,
    /// each attempt bounded by what is left of the second; one whose connection was closed or reset under it
    /// (curl's exit status 52 or 56; 28 is no answer in time) is made again after `retryDelay`, three attempts
    /// at most.
    func phoneRequest(_ prefix: String, retryDelay: Double, _ arguments: [String]) throws -> Served {
        let start = Date()
        var served = Served(code: "none within 1 s", attempts: [])
        while served.attempts.count < 3 {
            let left = 1.0 - Date().timeIntervalSince(start)
            guard left > 0.01 else { break }
            let result = try runCommand(
                "/usr/sbin/ip",
                [
                    "netns", "exec", "\(prefix)-phone", "curl", "-s", "--max-time", String(format: "%.3f", left),
                    "-w", "\n%{time_total}\n%{http_code}",
                ] + arguments)
            let lines = result.output.split(separator: "\n", omittingEmptySubsequences: false)
            served.code = String(lines.last ?? "")
            served.attempts.append(lines.dropLast().joined(separator: "\n") + " (curl exit \(result.status))")
            guard result.status == 52 || result.status == 56 else { return served }
            served.code = "none within 1 s"
            usleep(useconds_t(retryDelay * 1_000_000))
        }
        return served
    }

    @Test(.enabled(if: available, Comment(rawValue: why)), .timeLimit(.minutes(5)))
    func anotherProcessOnThePhoneHostCannotHoldThePhoneOut() throws {
        let prefix = "lk\(getpid() % 100_000)"
        let up = try runCommand("/bin/bash", [NetworkNamespaceTests.labScript, "up", prefix])
        defer { _ = try? runCommand("/bin/bash", [NetworkNamespaceTests.labScript, "down", prefix]) }
        try #require(up.status == 0, "netns-lab up failed: \(up.error)")
        let board = try BoardProcess(listen: ["192.168.42.1:8080"], interface: "eth0")
        try board.start(wrapper: ["/usr/sbin/ip", "netns", "exec", "\(prefix)-board"])
        defer { board.stop() }
        let rounds = 8
        for round in 0..<rounds {
            let created = try board.agent(
                "POST", "/v1/tasks",
                body: #"{"task_title":"Hold on \#(round)","request_id":"lk-\#(round)","can_stop":true}"#)
            try #require(created.status < 300, "\(created)")
        }

        // The hog runs as nobody, as any local user could: its script is copied where nobody can read it.
        let scratch = try Scratch("aiden-lockout")
        let script = scratch.path + "/hog.py"
        try FileManager.default.copyItem(atPath: Self.hog, toPath: script)
        _ = try runCommand("/bin/chmod", ["0755", scratch.path, script])
        let hog = Process()
        hog.executableURL = URL(fileURLWithPath: "/usr/sbin/ip")
        hog.arguments = [
            "netns", "exec", "\(prefix)-phone", "/usr/bin/setpriv", "--reuid=65534", "--regid=65534",
            "--clear-groups", "/usr/bin/python3", script, "--target", "192.168.42.1:8080", "--connections", "6000",
            "--seconds", "\(rounds + 4)",
        ]
        let output = Pipe()
        hog.standardOutput = output
        hog.standardError = output
        try hog.run()
        defer { if hog.isRunning { hog.terminate() } }
        usleep(1_500_000)  // the hog holds everything it can get first

        var fetches: [String] = []
        var answers: [String] = []
        for round in 0..<rounds {
            let fetch = try phoneRequest(
                prefix, retryDelay: 0.25, ["http://192.168.42.1:8080/api/live-activity/current"])
            fetches.append(fetch.code + (fetch.attempts.count > 1 ? " after \(fetch.attempts.count) attempts" : ""))
            #expect(fetch.code == "200", "fetch \(round) within 1 s: \(fetch)")
            let answer = try phoneRequest(
                prefix, retryDelay: 0,
                [
                    "-X", "POST", "-H", "Content-Type: application/json", "-d",
                    #"{"answer":"stop","answer_id":"lk-a-\#(round)","phone_id":"p1"}"#,
                    "http://192.168.42.1:8080/api/live-activity/tasks/lk-\(round)/answer",
                ])
            answers.append(answer.code + (answer.attempts.count > 1 ? " after \(answer.attempts.count) attempts" : ""))
            #expect(answer.code == "200", "answer \(round) within 1 s: \(answer)")
            usleep(500_000)
        }
        #expect(hog.isRunning, "the hog was still at it during every fetch and answer")
        hog.waitUntilExit()
        let counts = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        // SYNs the board's kernel dropped because the accept queue was full (each one waits a second to be resent).
        let overflows = try runCommand(
            "/usr/sbin/ip", ["netns", "exec", "\(prefix)-board", "nstat", "-az", "TcpExtListenOverflows"]
        ).output.split(separator: "\n").last.map { $0.split(separator: " ", omittingEmptySubsequences: true) }
        print(
            "phone-host lockout: fetches \(fetches), answers \(answers); hog: \(counts)"
                + "; accept-queue overflows: \(overflows.map { $0.count > 1 ? String($0[1]) : "?" } ?? "?")")
        // The hog really held what it could: far more connections than the per-peer cap were opened.
        let opened = (try? JSONSerialization.jsonObject(with: Data(counts.utf8)) as? [String: Any])?["opened"] as? Int
        #expect((opened ?? 0) > 100, "\(counts)")
    }
}
