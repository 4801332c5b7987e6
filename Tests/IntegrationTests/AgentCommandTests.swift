import Foundation
import Testing

/// What an agent does with the built aidenctl against a real aiden-board: run a command as a task, retry
/// writes, follow the transition ring.
@Suite(.serialized) struct AgentCommandTests {
    private func snapshot(_ board: BoardProcess, _ id: String) throws -> [String: Any] {
        try #require(try board.agent("GET", "/v1/tasks/\(id)").json?["live_activity"] as? [String: Any])
    }

    /// A bounded wait for `condition` (never a timing assertion).
    private func waitUntil(timeoutSeconds: Double = 10, _ condition: () throws -> Bool) rethrows -> Bool {
        let deadline = Date().addingTimeInterval(timeoutSeconds)
        while Date() < deadline {
            if try condition() { return true }
            usleep(20_000)
        }
        return try condition()
    }

    /// aidenctl started with `arguments`, its output collected in the background.
    final class Running {
        let process = Process()
        let output = Mutexed(Data())
        let error = Mutexed(Data())
        private let readers = DispatchGroup()

        init(_ arguments: [String], board: BoardProcess, environment: [String: String] = [:]) throws {
            guard let binary = Products.path("aidenctl") else { throw IntegrationError("aidenctl not built") }
            process.executableURL = URL(fileURLWithPath: binary)
            process.arguments = ["--socket", board.socketPath] + arguments
            process.environment = ["PATH": "/usr/sbin:/usr/bin:/sbin:/bin"].merging(environment) { $1 }
            let out = Pipe()
            let err = Pipe()
            process.standardOutput = out
            process.standardError = err
            try process.run()
            for (pipe, sink) in [(out, output), (err, error)] {
                DispatchQueue.global().async(group: readers) {
                    while true {
                        let chunk = pipe.fileHandleForReading.availableData
                        if chunk.isEmpty { return }
                        sink.update { $0.append(chunk) }
                    }
                }
            }
        }

        var standardOutput: String { String(decoding: output.get(), as: UTF8.self) }
        var standardError: String { String(decoding: error.get(), as: UTF8.self) }

        /// Waits (bounded) for the exit; kills it if it does not come. The status, 128 + signal if killed.
        func finish(timeoutSeconds: Double = 20) -> Int32 {
            let deadline = Date().addingTimeInterval(timeoutSeconds)
            while process.isRunning && Date() < deadline { usleep(10_000) }
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
            process.waitUntilExit()
            readers.wait()
            return process.terminationReason == .uncaughtSignal
                ? 128 + process.terminationStatus : process.terminationStatus
        }
    }

    @Test func aCommandThatSucceedsEndsItsTaskCompletedAndItsOutputPassesThrough() throws {
        let board = try BoardProcess()
        try board.start()
        defer { board.stop() }
        let run = try board.aidenctl([
            "task", "run", "--title", "Build", "--request-id", "build-1", "--phase", "acting", "--",
            "sh", "-c", #"echo "id=$AIDEN_TASK_ID key=${AIDEN_IDEMPOTENCY_KEY-unset}"; echo to stderr >&2"#,
        ])
        #expect(run.status == 0, "\(run.error)")
        #expect(run.output == "id=build-1 key=unset\n", "the command's stdout, and only it")
        #expect(run.error == "to stderr\n")
        let task = try snapshot(board, "build-1")
        #expect(task["status"] as? String == "completed")
        #expect(task["phase"] as? String == "acting")
        #expect(task["last_error"] as? String == "")
    }

    @Test func aCommandThatFailsEndsItsTaskFailedWithItsLastStderrLine() throws {
        let board = try BoardProcess()
        try board.start()
        defer { board.stop() }
        let run = try board.aidenctl([
            "task", "run", "--title", "Deploy", "--request-id", "deploy-1", "--",
            "sh", "-c", "echo working >&2; printf '\\033[31merror:\\033[0m disk full\\n' >&2; exit 3",
        ])
        #expect(run.status == 3)
        #expect(run.error.hasSuffix("disk full\n"), "stderr still reaches the user: \(run.error)")
        let task = try snapshot(board, "deploy-1")
        #expect(task["status"] as? String == "failed")
        #expect(task["last_error"] as? String == "error: disk full")

        let missing = try board.aidenctl([
            "task", "run", "--title", "Nope", "--request-id", "nope-1", "--", "/no/such/tool",
        ])
        #expect(missing.status == 127)
        #expect(missing.error == "aidenctl: cannot run '/no/such/tool': No such file or directory\n")
        #expect(
            try snapshot(board, "nope-1")["last_error"] as? String
                == "cannot run '/no/such/tool': No such file or directory")

        // The board away: the command is not run, and the exit status says why.
        let away = try runCommand(
            try #require(Products.path("aidenctl")),
            [
                "--socket", board.scratch.path + "/nobody.sock", "task", "run", "--title", "T", "--", "sh", "-c",
                "echo ran",
            ])
        #expect(away.status == 69)
        #expect(away.output == "")
    }

    @Test func aSignalIsPassedToTheCommandAndTheTaskEndsCanceled() throws {
        let board = try BoardProcess()
        try board.start()
        defer { board.stop() }
        let marker = board.scratch.path + "/child.pid"
        let running = try Running(
            [
                "task", "run", "--title", "Long", "--request-id", "long-1", "--", "sh", "-c",
                "echo $$ > \(marker); exec sleep 60",
            ],
            board: board)
        #expect(
            waitUntil {
                FileManager.default.fileExists(atPath: marker)
                    && (try? String(contentsOfFile: marker, encoding: .utf8))?.hasSuffix("\n") == true
            })
        let child = try #require(
            Int32((try String(contentsOfFile: marker, encoding: .utf8)).trimmingCharacters(in: .whitespacesAndNewlines))
        )
        #expect(try snapshot(board, "long-1")["status"] as? String == "running")
        kill(running.process.processIdentifier, SIGTERM)
        #expect(running.finish() == 128 + SIGTERM)
        #expect(kill(child, 0) == -1 && errno == ESRCH, "the command got the signal and is gone")
        let task = try snapshot(board, "long-1")
        #expect(task["status"] as? String == "canceled")
        #expect(task["last_error"] as? String == "stopped by SIGTERM")

        // Run again under the same request id: the start replays the ended task, so the command is not run twice.
        let again = try board.aidenctl([
            "task", "run", "--title", "Long", "--request-id", "long-1", "--", "touch", marker + ".again",
        ])
        #expect(again.status == 1)
        #expect(again.error.contains("has already ended (status canceled)"))
        #expect(!FileManager.default.fileExists(atPath: marker + ".again"))
    }

    /// Ctrl-C on a real terminal reaches the whole foreground process group: the command has it from the
    /// terminal, aidenctl counts the run as stopped and ends the task canceled, and the command, which
    /// handles SIGINT, decides when to exit. aidenctl sends no copy of its own: none arrives later. (A copy
    /// sent at the same moment could merge with the terminal's in the kernel, so this cannot catch every
    /// double; the rule is SignalRelay's.)
    @Test(.enabled(if: TmuxServer.unavailable == nil, Comment(rawValue: TmuxServer.unavailable ?? "")))
    func ctrlCOnATerminalReachesTheCommandAndCancelsTheTask() throws {
        let board = try BoardProcess()
        try board.start()
        defer { board.stop() }
        let dir = board.scratch.path
        let aidenctl = try #require(Products.path("aidenctl"))
        // The command takes each SIGINT as it comes (sigtimedwait, so none waits behind another) and writes
        // down who sent it: the terminal (si_code SI_KERNEL, 128) or a process (SI_USER, 0). It ticks while
        // it waits to be let go.
        let script = """
            import os, signal, sys
            signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
            def note(name, line):
                with open(os.path.join(sys.argv[1], name), "a") as f: f.write(line + "\\n")
            note("ticks", "start")
            while not os.path.exists(os.path.join(sys.argv[1], "done")):
                info = signal.sigtimedwait({signal.SIGINT}, 0.05)
                if info: note("ints", f"INT {info.si_code}")
                note("ticks", "tick")
            sys.exit(7)
            """
        let tmux = try TmuxServer(in: board.scratch)
        defer { tmux.stop() }
        try tmux.start(
            columns: 80, rows: 10,
            [
                aidenctl, "--socket", board.socketPath, "task", "run", "--title", "Interactive", "--request-id",
                "ctrl-c",
                "--", "/usr/bin/python3", "-c", script, dir,
            ])
        func lines(_ name: String) -> [String] {
            ((try? String(contentsOfFile: dir + "/" + name, encoding: .utf8)) ?? "").split(separator: "\n").map(
                String.init)
        }
        #expect(waitUntil { lines("ticks").count >= 2 }, "the command runs")
        try tmux.tmux(["send-keys", "C-c"])
        #expect(waitUntil { !lines("ints").isEmpty })
        // Two more ticks after it took it: a SIGINT passed on by aidenctl would have come long before.
        let ticks = lines("ticks").count
        #expect(waitUntil { lines("ticks").count >= ticks + 2 })
        #expect(lines("ints") == ["INT 128"], "the command got the terminal's SIGINT, and only that one")
        #expect(FileManager.default.createFile(atPath: dir + "/done", contents: nil))
        // tmux may see the pane's terminal close a moment before it has the exit status.
        #expect(waitUntil { !tmux.exitStatus().isEmpty })
        #expect(tmux.exitStatus() == "7", "aidenctl exits with the command's status")
        let task = try snapshot(board, "ctrl-c")
        #expect(task["status"] as? String == "canceled")
        #expect(task["last_error"] as? String == "stopped by SIGINT")
    }

    @Test func progressLinesOnStdoutMoveTheCard() throws {
        let board = try BoardProcess()
        try board.start()
        defer { board.stop() }
        let go = board.scratch.path + "/go"
        let script =
            "echo before; echo 'PROGRESS 0.5 Halfway there'; while [ ! -e \(go) ]; do sleep 0.05; done; echo after"
        let running = try Running(
            [
                "task", "run", "--title", "Sync", "--request-id", "sync-1", "--progress-from-stdout", "--", "sh", "-c",
                script,
            ],
            board: board)
        let reported = waitUntil {
            // The task may not be there yet at the first look.
            let task = (try? board.agent("GET", "/v1/tasks/sync-1").json?["live_activity"]) as? [String: Any]
            return task?["progress"] as? Double == 0.5 && task?["current_step"] as? String == "Halfway there"
        }
        #expect(reported, "the PROGRESS line reached the board while the command ran")
        #expect(try snapshot(board, "sync-1")["shows_progress"] as? Bool == true)
        #expect(FileManager.default.createFile(atPath: go, contents: nil))
        #expect(running.finish() == 0, "\(running.standardError)")
        #expect(running.standardOutput == "before\nafter\n", "progress lines are taken out, the rest passed through")
        #expect(try snapshot(board, "sync-1")["status"] as? String == "completed")
    }

    @Test func retriedStartsUpdatesAndEndsNeverDuplicate() throws {
        let board = try BoardProcess()
        try board.start()
        defer { board.stop() }
        let start = ["task", "start", "--title", "Open Settings", "--request-id", "chat_retry", "-q"]
        let first = try board.aidenctl(start)
        let second = try board.aidenctl(start)
        #expect(first.status == 0 && second.status == 0, "\(second.error)")
        #expect(first.output == "chat_retry\n" && second.output == "chat_retry\n")
        let other = try board.aidenctl(["task", "start", "--title", "Something else", "--request-id", "chat_retry"])
        #expect(other.status == 1, "another start under the same id is refused")

        let update = ["task", "update", "chat_retry", "--step", "Tapping", "--expected-revision", "1", "-q"]
        let keyed = update + ["--idempotency-key", "u-1"]
        #expect(try board.aidenctl(keyed).status == 0)
        #expect(try board.aidenctl(keyed).status == 0, "the retry is answered, though revision 1 is stale now")
        #expect(try board.aidenctl(update).status == 1, "without the key the same update is stale")
        let reused = try board.aidenctl(["task", "update", "chat_retry", "--step", "Other", "--idempotency-key", "u-1"])
        #expect(reused.status == 1)
        #expect(reused.error.contains("u-1"))

        let environment = ["AIDEN_TASK_ID": "chat_retry", "AIDEN_IDEMPOTENCY_KEY": "e-1"]
        let end = try runCommand(
            try #require(Products.path("aidenctl")),
            ["--socket", board.socketPath, "task", "end", "--status", "completed", "-q"],
            environment: environment)
        #expect(end.status == 0 && end.output == "", "\(end.error)")
        let endAgain = try runCommand(
            try #require(Products.path("aidenctl")),
            ["--socket", board.socketPath, "task", "end", "--status", "completed"],
            environment: environment)
        #expect(endAgain.status == 0)
        let tasks = try #require(try board.agent("GET", "/v1/tasks").json?["tasks"] as? [[String: Any]])
        #expect(tasks.count == 1)
    }

    @Test func staleAndAbandonTimesReachTheTaskAndAHeartbeatChangesNothing() throws {
        let board = try BoardProcess()
        try board.start()
        defer { board.stop() }
        let start = try board.aidenctl([
            "task", "start", "--title", "Long job", "--request-id", "chat_quiet", "--stale-after", "60",
            "--abandon-after", "600", "-q",
        ])
        #expect(start.status == 0, "\(start.error)")
        var task = try snapshot(board, "chat_quiet")
        #expect(task["stale_after_seconds"] as? Int == 60 && task["abandon_after_seconds"] as? Int == 600)
        let revision = try #require(task["revision"] as? Int)

        let heartbeat = try board.aidenctl(["task", "heartbeat", "chat_quiet"])
        #expect(heartbeat.status == 0, "\(heartbeat.error)")
        #expect(heartbeat.output.contains("request_id: chat_quiet\n"))
        #expect(heartbeat.output.contains("stale_after_seconds: 60\n"))
        #expect(try snapshot(board, "chat_quiet")["revision"] as? Int == revision, "news without a change")

        let update = try board.aidenctl([
            "task", "update", "chat_quiet", "--stale-after", "900", "--abandon-after", "7200",
        ])
        #expect(update.status == 0, "\(update.error)")
        task = try snapshot(board, "chat_quiet")
        #expect(task["stale_after_seconds"] as? Int == 900 && task["abandon_after_seconds"] as? Int == 7200)
        let tooShort = try board.aidenctl(["task", "update", "chat_quiet", "--stale-after", "5"])
        #expect(tooShort.status == 65, "the board checks the range: \(tooShort.error)")
        #expect(tooShort.error.contains("stale_after_seconds"))

        #expect(try board.aidenctl(["task", "end", "chat_quiet", "--status", "completed", "-q"]).status == 0)
        let late = try board.aidenctl(["task", "heartbeat", "chat_quiet", "-q"])
        #expect(late.status == 1 && late.output == "", "an ended task takes no heartbeat: \(late.error)")
        #expect(late.error.contains("409"))
    }

    @Test func eventsFollowPrintsTransitionsAsTheyHappen() throws {
        let board = try BoardProcess()
        try board.start()
        defer { board.stop() }
        #expect(try board.aidenctl(["task", "start", "--title", "Before", "--request-id", "before"]).status == 0)
        let follow = try Running(["events", "--follow", "--json"], board: board)
        defer { kill(follow.process.processIdentifier, SIGKILL) }
        func transitions() -> [String] {
            follow.standardOutput.split(separator: "\n").compactMap { line in
                guard let event = jsonObject(String(line)) else { return "unparsable: \(line)" }
                return "\(event["request_id"] as? String ?? "?") \(event["transition"] as? String ?? "?")"
            }
        }
        #expect(waitUntil { transitions() == ["before started"] }, "the ring so far: \(transitions())")
        #expect(try board.aidenctl(["task", "start", "--title", "During", "--request-id", "during"]).status == 0)
        #expect(try board.aidenctl(["task", "end", "during", "--status", "failed", "--error", "boom"]).status == 0)
        #expect(
            waitUntil { transitions() == ["before started", "during started", "during failed"] }, "\(transitions())")

        // The board restarts: the follower says so, keeps asking, and goes on from where it was.
        board.stop()
        #expect(waitUntil { follow.standardError.contains("cannot reach aiden-board") }, "\(follow.standardError)")
        try board.start()
        #expect(try board.aidenctl(["task", "end", "before", "--status", "completed"]).status == 0)
        #expect(waitUntil { transitions().last == "before completed" }, "\(transitions())")
        #expect(transitions().count == 4, "nothing printed twice: \(transitions())")
        #expect(follow.standardError.contains("answers again"))
        #expect(follow.process.isRunning)
    }
}
