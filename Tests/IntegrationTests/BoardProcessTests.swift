import Foundation
import HTTPClient
import HTTPClientCore
import LiveActivity
import TestSupport
import Testing
import WakeProtocol
import WireFormat

/// aiden-board and aidenctl as built binaries, talking over loopback and a Unix socket.
@Suite(.serialized) struct BoardProcessTests {
    /// libdispatch reports a misused object (a source activated with no event handler, as the HTTP server's
    /// deadline timer once was) through syslog, which under systemd is the daemon's journal; here it is sent to
    /// stderr (`LIBDISPATCH_LOG=stderr`) while the board starts, serves a task and stops.
    @Test func libdispatchHasNothingToSayAboutTheBoard() throws {
        let board = try BoardProcess()
        try board.start(environment: ["LIBDISPATCH_LOG": "stderr"])
        let start = try board.aidenctl(["task", "start", "--title", "Open Settings"])
        #expect(start.status == 0, "\(start.error)")
        #expect(try board.http("/api/live-activity/current").status == 200)
        board.stop()
        #expect(!board.log.contains("libdispatch"), "\(board.log)")
    }

    @Test func aidenctlDrivesATaskThroughEveryStatus() throws {
        let board = try BoardProcess()
        try board.start()
        defer { board.stop() }

        let start = try board.aidenctl([
            "task", "start", "--title", "Open Settings", "--phone-id", "p1",
            "--step", "Checking the screen", "--phase", "observing", "--progress", "0.1",
        ])
        #expect(start.status == 0, "\(start.error)")
        let id = start.lastLine
        #expect(id.hasPrefix("chat_"), "the id is the last line: \(start.output)")

        let update = try board.aidenctl([
            "task", "update", "--id", id, "--step", "Tapping Wi-Fi", "--phase", "acting",
            "--action", "tap", "--target", "Wi-Fi", "--app", "Settings", "--tool", "tap",
            "--progress", "0.5",
        ])
        #expect(update.status == 0, "\(update.error)")
        let needsApp = try board.aidenctl(["task", "update", "--id", id, "--status", "needs_app"])
        #expect(needsApp.status == 0, "\(needsApp.error)")

        let shown = try board.aidenctl(["--json", "task", "show", id])
        #expect(shown.status == 0)
        let snapshot = try #require(jsonObject(shown.output)?["live_activity"] as? [String: Any])
        #expect(snapshot["status"] as? String == "needs_app")
        #expect(snapshot["current_step"] as? String == "Tapping Wi-Fi")
        #expect(snapshot["progress"] as? Double == 0.5)

        let end = try board.aidenctl(["task", "end", "--id", id, "--status", "completed"])
        #expect(end.status == 0, "\(end.error)")
        let late = try board.aidenctl(["task", "update", "--id", id, "--step", "too late"])
        #expect(late.status == 1)
        #expect(late.error.split(separator: "\n").count == 1, "one clear line: \(late.error)")
        #expect(late.error.contains("409"))

        let list = try board.aidenctl(["--json", "task", "list"])
        let tasks = try #require(jsonObject(list.output)?["tasks"] as? [[String: Any]])
        #expect(tasks.map { $0["request_id"] as? String } == [id])
        #expect(tasks.first?["status"] as? String == "completed")

        let status = try board.aidenctl(["status"])
        #expect(status.status == 0)
        #expect(status.output.contains("0.1.0"))
        #expect(status.output.hasPrefix("● aiden-board: running\n"), "\(status.output)")
        #expect(status.output.contains("Tasks: 0 active, 1 ended"), "\(status.output)")

        // The phone side sees the final state, and the events ring has each transition once.
        let current = try board.http("/api/live-activity/current?phone_id=p1")
        #expect(current.status == 200)
        #expect((current.json?["live_activity"] as? [String: Any])?["status"] as? String == "completed")
        let events = try #require(try board.http("/api/live-activity/events?since=0").json)
        #expect(
            (events["events"] as? [[String: Any]])?.compactMap { $0["transition"] as? String }
                == ["started", "foreground_recovery", "completed"])
    }

    @Test func startWithJSONPrintsOneObjectWithTheRequestID() throws {
        let board = try BoardProcess()
        try board.start()
        defer { board.stop() }
        let start = try board.aidenctl(["--json", "task", "start", "--title", "T"])
        #expect(start.status == 0)
        let object = try #require(jsonObject(start.output))
        #expect((object["request_id"] as? String)?.hasPrefix("chat_") == true)
    }

    @Test func aidenctlExitCodes() throws {
        let board = try BoardProcess()
        try board.start()
        defer { board.stop() }
        #expect(try board.aidenctl(["task", "start"]).status == 64, "missing --title is a usage error")
        let tooLong = try board.aidenctl(["task", "start", "--title", String(repeating: "x", count: 201)])
        #expect(tooLong.status == 65, "\(tooLong.error)")
        #expect(tooLong.error.contains("task_title"))
        #expect(try board.aidenctl(["task", "show", "chat_nothere"]).status == 1)
        let away = try runCommand(
            try #require(Products.path("aidenctl")),
            ["--socket", board.scratch.path + "/nobody.sock", "status"])
        #expect(away.status == 69)
        #expect(away.error.contains("cannot reach aiden-board"))
    }

    @Test func everyAcceptedChangeIsFollowedByACoalescedWake() throws {
        let board = try BoardProcess(coalesceMilliseconds: 200)
        try board.start()
        defer { board.stop() }
        #expect(board.waitForWakes { $0.count == 1 })
        let first = try #require(board.receivedWakes.first)
        #expect(first.reason == .system)
        #expect(first.version == 1)
        let started = try board.agent("POST", "/v1/tasks", body: #"{"task_title":"Burst"}"#)
        let id = try #require((started.json?["live_activity"] as? [String: Any])?["request_id"] as? String)
        for step in 0..<100 {
            _ = try board.agent("PATCH", "/v1/tasks/\(id)", body: #"{"current_step":"token \#(step)"}"#)
        }
        // The last change is always followed by a Wake: wait for it, then check the stream.
        let settled = board.waitForWakes(timeoutSeconds: 5) { wakes in
            wakes.count >= 2 && wakes.last?.reason == .liveActivity
        }
        #expect(settled)
        usleep(400_000)  // one more window: nothing else may follow without a change
        let wakes = board.receivedWakes
        #expect(wakes.count < 50, "100 changes must coalesce, got \(wakes.count) Wakes")
        #expect(Set(wakes.map(\.epoch)).count == 1)
        #expect(zip(wakes, wakes.dropFirst()).allSatisfy { $0.sequence < $1.sequence })
        let current = try board.http("/api/live-activity/current")
        #expect((current.json?["live_activity"] as? [String: Any])?["current_step"] as? String == "token 99")
    }

    @Test func notModifiedAndKeepAliveOverTheRealServer() throws {
        let board = try BoardProcess()
        try board.start()
        defer { board.stop() }
        _ = try board.agent("POST", "/v1/tasks", body: #"{"task_title":"T"}"#)
        let first = try board.http("/api/live-activity/current")
        let tag = try #require(first.headers["etag"])
        let again = try board.http("/api/live-activity/current", headers: [("If-None-Match", tag)])
        #expect(again.status == 304)
        #expect(again.body.isEmpty)
    }

    @Test func badInputGetsItsStatusAndTheDaemonKeepsServing() throws {
        let board = try BoardProcess()
        try board.start()
        defer { board.stop() }
        let cases: [(String, String, [UInt8], Int)] = [
            ("POST", "/v1/tasks", Array("{not json".utf8), 400),
            ("POST", "/v1/tasks", [0x7B, 0x22, 0x74, 0xFF, 0x22, 0x3A, 0x31, 0x7D], 400),
            ("POST", "/v1/tasks", Array(#"{"task_title":"T","progress":2}"#.utf8), 400),
            ("POST", "/v1/tasks", Array(#"{"task_title":"T","phase":"napping"}"#.utf8), 400),
            ("POST", "/v1/tasks", Array(#"{"task_title":["T"]}"#.utf8), 400),
            ("POST", "/v1/tasks", [UInt8](repeating: 0x20, count: 17 * 1024), 413),
            ("DELETE", "/v1/tasks", [], 405),
            ("GET", "/v1/nothing", [], 404),
        ]
        for (method, path, body, expected) in cases {
            let response = try HTTPClientHelper.agent(board, method, path, body)
            #expect(response.status == expected, "\(method) \(path) → \(response.status) \(response.text)")
            #expect(response.json?["status"] as? String == "error", "\(response.text)")
        }
        #expect(try board.http("/api/live-activity/status").status == 400)
        #expect(try board.http("/api/live-activity/events?since=x").status == 400)
        #expect(try board.http("/nope").status == 404)
        #expect(
            try board.http(
                "/api/phone/app-state", method: "POST", body: Array(#"{"state":"??"}"#.utf8),
                headers: [("Content-Type", "application/json")]
            ).status == 400)
        #expect(try board.agent("GET", "/v1/tasks").json?["tasks"] as? [Any] != nil)
        #expect(try board.agent("GET", "/v1/status").status == 200, "still serving after bad input")
    }

    @Test func eachStartHasItsOwnInstanceID() throws {
        let board = try BoardProcess()
        try board.start()
        let first = try #require(try board.http("/status").json?["instance_id"] as? String)
        board.stop()
        try board.start()
        defer { board.stop() }
        let second = try #require(try board.http("/status").json?["instance_id"] as? String)
        #expect(!first.isEmpty && first != second)
    }

    @Test func killNineLosesNoAcknowledgedWriteAndSequencesKeepRising() throws {
        let board = try BoardProcess(coalesceMilliseconds: 50)
        try board.start()
        var acknowledged: [String] = []
        var ended: [String] = []
        for round in 0..<20 {
            let started = try board.agent("POST", "/v1/tasks", body: #"{"task_title":"round \#(round)"}"#)
            guard started.status == 201,
                let id = (started.json?["live_activity"] as? [String: Any])?["request_id"] as? String
            else { continue }
            acknowledged.append(id)
            for step in 0..<10 {
                _ = try board.agent("PATCH", "/v1/tasks/\(id)", body: #"{"current_step":"s\#(step)"}"#)
            }
            if round % 2 == 0,
                try board.agent("POST", "/v1/tasks/\(id)/end", body: #"{"status":"failed"}"#).status == 200
            {
                ended.append(id)
            }
        }
        _ = board.waitForWakes { $0.count > 3 }
        let before = board.receivedWakes
        #expect(board.stop(signal: SIGKILL) == -SIGKILL)

        try board.start()
        defer { board.stop() }
        let tasks = try #require(try board.agent("GET", "/v1/tasks").json?["tasks"] as? [[String: Any]])
        let byID = Dictionary(
            uniqueKeysWithValues: tasks.compactMap { task in
                (task["request_id"] as? String).map { ($0, task) }
            })
        for id in acknowledged { #expect(byID[id] != nil, "acknowledged start \(id) survived kill -9") }
        for id in ended { #expect(byID[id]?["status"] as? String == "failed", "acknowledged end \(id) survived") }

        #expect(board.waitForWakes { $0.count > before.count })
        let after = board.receivedWakes.dropFirst(before.count)
        let highestBefore = try #require(before.map(\.sequence).max())
        #expect(after.allSatisfy { $0.sequence > highestBefore }, "every new Wake is above \(highestBefore)")
        #expect(after.allSatisfy { $0.epoch == before[0].epoch }, "same state directory, same epoch")
    }

    @Test func sigtermFlushesPendingUpdatesAndRemovesTheSocket() throws {
        let board = try BoardProcess()
        try board.start()
        let started = try board.agent("POST", "/v1/tasks", body: #"{"task_title":"T"}"#)
        let id = try #require((started.json?["live_activity"] as? [String: Any])?["request_id"] as? String)
        _ = try board.agent("PATCH", "/v1/tasks/\(id)", body: #"{"current_step":"written on the way out"}"#)
        #expect(board.stop(signal: SIGTERM) == 0)
        #expect(!FileManager.default.fileExists(atPath: board.socketPath))
        try board.start()
        defer { board.stop() }
        let shown = try board.agent("GET", "/v1/tasks/\(id)")
        #expect(
            (shown.json?["live_activity"] as? [String: Any])?["current_step"] as? String == "written on the way out")
    }

    /// SIGHUP and SIGQUIT end the board as SIGTERM does: pending updates written, socket removed, status 0.
    @Test(arguments: [SIGHUP, SIGQUIT])
    func sighupAndSigquitFlushPendingUpdatesLikeSigterm(signal: Int32) throws {
        let board = try BoardProcess()
        try board.start()
        let started = try board.agent("POST", "/v1/tasks", body: #"{"task_title":"T"}"#)
        let id = try #require((started.json?["live_activity"] as? [String: Any])?["request_id"] as? String)
        _ = try board.agent("PATCH", "/v1/tasks/\(id)", body: #"{"current_step":"written on the way out"}"#)
        #expect(board.stop(signal: signal) == 0, "a clean stop, not the signal's default death")
        #expect(board.log.contains("\(signal == SIGHUP ? "SIGHUP" : "SIGQUIT"): stopping"))
        #expect(!FileManager.default.fileExists(atPath: board.socketPath))
        try board.start()
        defer { board.stop() }
        let shown = try board.agent("GET", "/v1/tasks/\(id)")
        #expect(
            (shown.json?["live_activity"] as? [String: Any])?["current_step"] as? String == "written on the way out")
    }

    /// Two boards on one state directory would interleave their writes and hand out the same sequences: the
    /// second is refused at start, naming the directory and the first one's pid, and leaves the first alone.
    @Test func aSecondBoardOnTheSameStateDirectoryIsRefused() throws {
        guard let binary = Products.path("aiden-board") else { throw IntegrationError("aiden-board not built") }
        let first = try BoardProcess()
        try first.start()
        defer { first.stop() }
        let pid = try #require(first.process?.processIdentifier)
        let second = try BoardProcess(stateDirectory: first.stateDirectory)
        let refused = try runCommand(binary, ["--config", second.configPath])
        #expect(refused.status == 73, "EX_CANTCREAT, as for any unusable state directory")
        #expect(
            refused.error.contains(
                "state directory: \(first.stateDirectory): in use by another aiden-board (pid \(pid)), which holds "
                    + "the lock \(first.stateDirectory)/board.lock"), "\(refused.error)")
        #expect(!FileManager.default.fileExists(atPath: second.socketPath), "refused before opening anything")
        #expect(try first.agent("POST", "/v1/tasks", body: #"{"task_title":"still mine"}"#).status == 201)
        first.stop()
        try second.start()
        defer { second.stop() }
        #expect(second.log.contains("1 tasks"), "the directory is the second board's once the first has stopped")
    }

    /// A store at its largest (every task at the snapshot limit) is the largest answer on the agent socket:
    /// aidenctl reads it whole.
    @Test func aidenctlListsAFullStoreAtTheSnapshotLimit() throws {
        let board = try BoardProcess()
        try FileManager.default.createDirectory(atPath: board.stateDirectory, withIntermediateDirectories: true)
        let store = try FullTaskStore.make(now: Date())
        try LiveActivityJSON.makeEncoder().encode(store).write(
            to: URL(fileURLWithPath: board.stateDirectory + "/tasks.json"))
        try board.start()
        defer { board.stop() }
        let listed = try board.aidenctl(["task", "list", "--json"])
        #expect(listed.status == 0, "\(listed.error)")
        #expect(listed.output.utf8.count == WireLimits.maxTaskListBytes + 1, "the whole list and a newline")
        #expect((jsonObject(listed.output)?["tasks"] as? [Any])?.count == WireLimits.maxTasks)
        let table = try board.aidenctl(["task", "list"])
        #expect(table.status == 0, "\(table.error)")
    }

    @Test func aWipedStateDirectoryMeansANewEpoch() throws {
        let board = try BoardProcess()
        try board.start()
        #expect(board.waitForWakes { $0.count == 1 })
        board.stop()
        try FileManager.default.removeItem(atPath: board.stateDirectory)
        try board.start()
        defer { board.stop() }
        #expect(board.waitForWakes { $0.count == 2 })
        let wakes = board.receivedWakes
        #expect(wakes[0].epoch != wakes[1].epoch)
        #expect(wakes[1].sequence == 1)
    }

    @Test func aCorruptStateFileIsReportedAndMovedAside() throws {
        let board = try BoardProcess()
        try FileManager.default.createDirectory(atPath: board.stateDirectory, withIntermediateDirectories: true)
        try "{ broken".write(toFile: board.stateDirectory + "/tasks.json", atomically: true, encoding: .utf8)
        try board.start()
        defer { board.stop() }
        let files = try FileManager.default.contentsOfDirectory(atPath: board.stateDirectory)
        #expect(files.contains { $0.hasPrefix("tasks.json.corrupt-") })
        #expect(board.log.contains("tasks.json was not valid"))
        #expect(try board.agent("POST", "/v1/tasks", body: #"{"task_title":"fresh"}"#).status == 201)
    }

    @Test func startupFailuresSayWhatIsWrong() throws {
        guard let binary = Products.path("aiden-board") else { throw IntegrationError("aiden-board not built") }
        let scratch = try Scratch()
        let bad = scratch.path + "/bad.toml"
        try "[http]\nlisten = [\"192.168.42.1:8080\"]\nmystery = 1\n".write(
            toFile: bad, atomically: true, encoding: .utf8)
        let result = try runCommand(binary, ["--config", bad])
        #expect(result.status == 78)
        #expect(result.error.contains("bad.toml:3: http.mystery"), "\(result.error)")

        let missing = try runCommand(binary, ["--config", scratch.path + "/absent.toml"])
        #expect(missing.status == 78)

        // A port already taken: the error names the address.
        let holder = try BoardProcess()
        try holder.start()
        defer { holder.stop() }
        let clash = try BoardProcess(listen: ["127.0.0.1:\(holder.port)"])
        #expect(throws: IntegrationError.self) { try clash.start() }
        #expect(clash.log.contains("bind 127.0.0.1:\(holder.port)"), "\(clash.log)")

        #expect(try runCommand(binary, ["--bogus"]).status == 64)
        #expect(try runCommand(binary, ["--help"]).output.contains("aiden-board doctor"))
    }

    @Test func doctorReportsFindingsWithFixes() throws {
        guard let binary = Products.path("aiden-board") else { throw IntegrationError("aiden-board not built") }
        let board = try BoardProcess(listen: ["127.0.0.1:0", "192.168.42.1:8080"])
        // No daemon yet: the ECM address is absent here, the socket is missing.
        let offline = try runCommand(binary, ["doctor", "--config", board.configPath])
        #expect(offline.status == 1)
        #expect(offline.output.contains("problem: 192.168.42.1 (listen 192.168.42.1:8080) is not on any interface"))
        #expect(offline.output.contains("(fix: "))
        #expect(offline.output.contains("info: no agent socket"))
        #expect(offline.output.contains("ok: configuration"))
        #expect(offline.output.contains("ok: wake transport: loopback"))

        // The same checks as JSON, named, with the same exit status.
        let json = try runCommand(binary, ["doctor", "--json", "--config", board.configPath])
        #expect(json.status == 1)
        let object = try #require(
            try JSONSerialization.jsonObject(with: Data(json.output.utf8)) as? [String: Any], "\(json.output)")
        #expect(object["result"] as? String == "problem")
        let checks = try #require(object["checks"] as? [[String: Any]])
        #expect(checks.count == offline.output.split(separator: "\n").count)
        let listen = checks.filter { $0["name"] as? String == "listen" }
        #expect(listen.map { $0["status"] as? String } == ["ok", "problem"])
        #expect(listen.last?["fix"] is String)
        #expect(checks.first { $0["name"] as? String == "agent_socket" }?["status"] as? String == "warning")
        #expect(checks.map { $0["name"] as? String }.first == "configuration")
    }
}

/// Raw-byte requests on the agent socket (aidenctl never sends broken bodies; tests must).
enum HTTPClientHelper {
    static func agent(
        _ board: BoardProcess, _ method: String, _ path: String, _ body: [UInt8]
    ) throws
        -> HTTPClientResponse
    {
        try HTTPClient().perform(
            HTTPClientRequest(
                method: method, url: "http://localhost\(path)", headers: [("Content-Type", "application/json")],
                body: body,
                unixSocketPath: board.socketPath, timeout: .init(connectMilliseconds: 1000, totalMilliseconds: 5000)))
    }
}
