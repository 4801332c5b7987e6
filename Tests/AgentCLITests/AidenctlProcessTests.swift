import Foundation
import Testing

/// The built `aidenctl` binary as a process, against a fake agent socket: what an agent calling it sees.
@Suite("aidenctl as a process")
struct AidenctlProcessTests {
    struct Run {
        var status: Int32
        var standardOutput: String
        var standardError: String
    }

    /// `aidenctl` sits next to the test bundle in the build products directory (`swift build --build-tests`
    /// builds it); `.build/debug` from the package root is the fallback.
    static let binary: URL? = {
        let candidates = [
            URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()
                .appendingPathComponent("aidenctl"),
            URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
                .appendingPathComponent("aidenctl"),
            URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
                .deletingLastPathComponent().appendingPathComponent(".build/debug/aidenctl"),
        ]
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0.path) }
    }()

    static let started =
        #"{"status":"ok","live_activity":{"request_id":"chat_e2e","status":"running","#
        + #""phase":"planning","task_title":"Open Settings","progress":0,"revision":1}}"#

    private func aidenctl(_ arguments: [String], environment: [String: String] = [:]) throws -> Run {
        let binary = try #require(Self.binary, "aidenctl not found next to the tests; run swift build --build-tests")
        let process = Process()
        process.executableURL = binary
        process.arguments = arguments
        process.environment = environment  // nothing inherited: no AIDEN_AGENT_SOCKET, no proxy variables
        let output = Pipe()
        let error = Pipe()
        process.standardOutput = output
        process.standardError = error
        try process.run()
        let out = output.fileHandleForReading.readDataToEndOfFile()
        let err = error.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Run(
            status: process.terminationStatus, standardOutput: String(decoding: out, as: UTF8.self),
            standardError: String(decoding: err, as: UTF8.self))
    }

    private func withServer(
        _ reply: @escaping @Sendable (FakeAgentServer.Request, Int) -> FakeAgentServer.Reply,
        _ body: (FakeAgentServer) throws -> Void
    ) throws {
        var template = Array("/tmp/aidenctl-e2e-XXXXXX".utf8CString)
        let directory = try #require(mkdtemp(&template).map { String(cString: $0) })
        let server = try FakeAgentServer(path: directory + "/agent.sock", reply: reply)
        defer {
            server.stop()
            rmdir(directory)
        }
        try body(server)
    }

    @Test func startPrintsTheIDLastAndExitsZero() throws {
        try withServer({ _, _ in .answer(status: 201, body: Self.started) }) { server in
            let run = try aidenctl([
                "--socket", server.path, "task", "start", "--title", "Open Settings",
                "--phase", "planning", "--progress", "0",
            ])
            #expect(run.status == 0)
            #expect(run.standardError == "")
            #expect(run.standardOutput.split(separator: "\n").last == "chat_e2e")
            let request = try #require(server.requests.first)
            #expect(request.method == "POST")
            #expect(request.path == "/v1/tasks")
            #expect(request.headers["content-type"] == "application/json")
            let key = try #require(request.headers["idempotency-key"])
            #expect(key.hasPrefix("aidenctl-") && key.count == 41)
            let body = try JSONSerialization.jsonObject(with: Data(request.body)) as? [String: Any]
            #expect(body?["task_title"] as? String == "Open Settings")
            #expect(body?["phase"] as? String == "planning")
            #expect(body?["progress"] as? Double == 0)
        }
    }

    @Test func jsonOutputIsOneParsableObjectWithTheRequestID() throws {
        try withServer({ _, _ in .answer(status: 201, body: Self.started) }) { server in
            let run = try aidenctl(
                ["task", "start", "--title", "Open Settings", "--json"],
                environment: ["AIDEN_AGENT_SOCKET": server.path])
            #expect(run.status == 0)
            let lines = run.standardOutput.split(separator: "\n")
            #expect(lines.count == 1)
            let object = try JSONSerialization.jsonObject(with: Data(run.standardOutput.utf8)) as? [String: Any]
            #expect(object?["request_id"] as? String == "chat_e2e")
            let snapshot = object?["live_activity"] as? [String: Any]
            #expect(snapshot?["request_id"] as? String == "chat_e2e")
        }
    }

    @Test func aConflictExitsOneWithOneLineOnStderr() throws {
        let conflict = #"{"status":"error","error":{"code":"conflict","message":"task chat_e2e has ended"}}"#
        try withServer({ _, _ in .answer(status: 409, body: conflict) }) { server in
            let run = try aidenctl(["--socket", server.path, "task", "update", "--id", "chat_e2e", "--step", "late"])
            #expect(run.status == 1)
            #expect(run.standardError == "aidenctl: conflict: task chat_e2e has ended (409)\n")
            #expect(run.standardOutput == "")
            #expect(server.requests.first?.method == "PATCH")
            #expect(server.requests.first?.path == "/v1/tasks/chat_e2e")
        }
    }

    @Test func rejectedInputExitsSixtyFive() throws {
        let invalid =
            #"{"status":"error","error":{"code":"invalid_field","message":"title too long","#
            + #""field":"task_title"}}"#
        try withServer({ _, _ in .answer(status: 400, body: invalid) }) { server in
            let run = try aidenctl(["--socket", server.path, "task", "start", "--title", "x"])
            #expect(run.status == 65)
            #expect(run.standardError == "aidenctl: invalid_field: title too long (field task_title, 400)\n")
        }
    }

    @Test func aStartIsRetriedOnceWithTheSameKeyAfterAHangUp() throws {
        try withServer({ _, index in index == 0 ? .hangUp : .answer(status: 201, body: Self.started) }) { server in
            let run = try aidenctl(["--socket", server.path, "task", "start", "--title", "Open Settings"])
            #expect(run.status == 0)
            #expect(run.standardOutput.hasSuffix("\nchat_e2e\n"))
            let keys = server.requests.map { $0.headers["idempotency-key"] }
            #expect(keys.count == 2)
            #expect(keys[0] != nil && keys[0] == keys[1])
        }
    }

    @Test func noSocketExitsSixtyNine() throws {
        var template = Array("/tmp/aidenctl-e2e-XXXXXX".utf8CString)
        let directory = try #require(mkdtemp(&template).map { String(cString: $0) })
        defer { rmdir(directory) }
        let path = directory + "/agent.sock"
        let run = try aidenctl(["--socket", path, "status"])
        #expect(run.status == 69)
        #expect(
            run.standardError
                == "aidenctl: cannot reach aiden-board at \(path): no such file or directory (is the daemon running?)\n"
        )
        #expect(run.standardOutput == "")
    }

    @Test func badUsageExitsSixtyFourAndHelpExitsZero() throws {
        let bad = try aidenctl(["task", "start", "--progress", "2"])
        #expect(bad.status == 64)
        #expect(bad.standardError == "aidenctl: missing required option --title (see 'aidenctl task start --help')\n")
        #expect(bad.standardOutput == "")
        let help = try aidenctl(["task", "start", "--help"])
        #expect(help.status == 0)
        #expect(help.standardOutput.hasPrefix("usage: aidenctl [--socket PATH] [--json] task start --title T"))
        let none = try aidenctl([])
        #expect(none.status == 64)
    }
}
