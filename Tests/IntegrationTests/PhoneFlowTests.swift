import Foundation
import HTTPClient
import HTTPClientCore
import Testing
import WakeProtocol

/// aiden-board and aiden-phone as processes over loopback, driven by aidenctl: what the phone's
/// `--json` stream shows and alerts.
@Suite(.serialized) struct PhoneFlowTests {
    /// A board whose Wakes go to a phone that fetches from it.
    private func pair(
        coalesceMilliseconds: Int = 750, phoneID: String? = "it-phone"
    ) throws
        -> (BoardProcess, PhoneProcess)
    {
        let wakePort = try freeLoopbackPort()
        let board = try BoardProcess(coalesceMilliseconds: coalesceMilliseconds, wakeTarget: "127.0.0.1:\(wakePort)")
        let phone = try PhoneProcess(boardURL: "http://127.0.0.1:\(board.port)", phoneID: phoneID, wakePort: wakePort)
        return (board, phone)
    }

    private func ctl(_ board: BoardProcess, _ arguments: [String]) throws -> String {
        let result = try board.aidenctl(arguments)
        guard result.status == 0 else { throw IntegrationError("aidenctl \(arguments): \(result.error)") }
        return result.lastLine
    }

    private func step(_ value: String) -> ([String: Any]) -> Bool {
        { $0["current_step"] as? String == value }
    }

    private func state(_ value: String, _ id: String? = nil) -> ([String: Any]) -> Bool {
        { $0["state"] as? String == value && (id == nil || $0["request_id"] as? String == id) }
    }

    /// Starts a task and waits for its running card: by then every earlier fetch has finished, and the
    /// alert record written after it (milliseconds, against this round's aidenctl, Wake and fetch), so
    /// no alert of an earlier transition can still be on its way.
    private func flush(_ board: BoardProcess, _ phone: PhoneProcess) throws {
        let id = try ctl(board, ["task", "start", "--title", "Flush"])
        #expect(phone.waitForCard(state("running", id)), "\(phone.rawLines.suffix(5))")
    }

    @Test func aTaskThroughEveryStatusAlertsOncePerHighValueTransition() throws {
        let (board, phone) = try pair()
        try board.start()
        defer { board.stop() }
        try phone.start()
        defer { phone.stop() }
        #expect(phone.waitForCard(state("standby")))
        // The alert is shown once its record is written, so it may follow the card by a moment.
        #expect(phone.waitFor { _ in phone.alertCount("connected") == 1 })
        #expect(phone.alerts.count == 1)

        let id = try ctl(
            board,
            [
                "task", "start", "--title", "Open Settings", "--phone-id", "it-phone",
                "--step", "Planning", "--phase", "planning", "--progress", "0",
            ])
        #expect(phone.waitForCard(state("running", id)))
        // A burst well inside one coalescing window: the phone ends on its last step.
        for index in 1...5 {
            _ = try ctl(
                board,
                [
                    "task", "update", "--id", id, "--step", "Step \(index)", "--phase", "acting",
                    "--progress", "0.\(index)",
                ])
        }
        #expect(phone.waitForCard(step("Step 5")), "\(phone.rawLines.suffix(5))")
        #expect(phone.lastCard?["progress"] as? Double == 0.5)

        _ = try ctl(
            board,
            [
                "task", "update", "--id", id, "--phase", "waiting_user", "--action", "request_user_input",
                "--step", "Enter the PIN",
            ])
        #expect(phone.waitForCard(state("handoff", id)))
        _ = try ctl(
            board, ["task", "update", "--id", id, "--phase", "acting", "--action", "tap", "--step", "Continue"])
        #expect(phone.waitForCard(step("Continue")))
        _ = try ctl(board, ["task", "update", "--id", id, "--status", "needs_app"])
        #expect(phone.waitForCard(state("needs_app", id)))
        _ = try ctl(board, ["task", "update", "--id", id, "--status", "running", "--step", "Back"])
        #expect(phone.waitForCard(step("Back")))
        _ = try ctl(board, ["task", "end", "--id", id, "--status", "completed"])
        #expect(phone.waitForCard(state("completed", id)))

        let failing = try ctl(board, ["task", "start", "--title", "Send a message"])
        _ = try ctl(board, ["task", "end", "--id", failing, "--status", "failed", "--error", "The screen is locked"])
        #expect(phone.waitForCard(state("failed", failing)))
        #expect(phone.lastCard?["last_error"] as? String == "The screen is locked")
        let canceled = try ctl(board, ["task", "start", "--title", "Never mind"])
        _ = try ctl(board, ["task", "end", "--id", canceled, "--status", "canceled"])
        #expect(phone.waitForCard(state("canceled", canceled)))
        try flush(board, phone)

        #expect(
            phone.alerts == [
                "connected -", "handoff \(id)", "foreground_recovery \(id)", "completed \(id)", "failed \(failing)",
            ])
        #expect(phone.events("error").isEmpty, "\(phone.events("error"))")
        let wakes = phone.events("wake")
        #expect(!wakes.isEmpty)
        #expect(Set(wakes.compactMap { $0["epoch"] as? Int }).count == 1)
        let connected = try #require(phone.events("alert").first)
        #expect((connected["connection_id"] as? String)?.hasPrefix("board-") == true)
        // The alerts say what happened: the task's title, the step and action of the handoff, the error.
        let told = phone.events("alert").dropFirst().map { alert in
            ["transition", "title", "step", "action", "error"].map { alert[$0] as? String ?? "-" }
                .joined(separator: " | ")
        }
        #expect(
            told == [
                "handoff | Open Settings | Enter the PIN | request_user_input | -",
                "foreground_recovery | Open Settings | - | - | -",
                "completed | Open Settings | - | - | -",
                "failed | Send a message | - | - | The screen is locked",
            ])
        // --json with no session bus: no way back to the task to offer.
        let app = try #require(board.http("/status").json?["phone_app"] as? [String: Any])
        #expect(app["return_entry"] as? String == "")
        #expect(app["return_entry_available"] as? Bool == false)
    }

    @Test func aHandoffThatBeginsAndEndsInsideOneWindowStillAlertsOnce() throws {
        let (board, phone) = try pair(coalesceMilliseconds: 3_000)
        try board.start()
        defer { board.stop() }
        try phone.start()
        defer { phone.stop() }
        let id = try ctl(board, ["task", "start", "--title", "Quick question"])
        #expect(phone.waitForCard(state("running", id)))
        _ = try ctl(board, ["task", "update", "--id", id, "--phase", "waiting_user", "--action", "request_user_input"])
        _ = try ctl(board, ["task", "update", "--id", id, "--phase", "acting", "--action", "tap", "--step", "Resumed"])
        #expect(phone.waitForCard(step("Resumed")))
        #expect(phone.waitFor { _ in phone.alertCount("handoff") == 1 })
        try flush(board, phone)
        #expect(phone.alertCount("handoff") == 1)
        // Over before any fetch: the task is named, no step that is no longer wanted.
        let handoff = try #require(phone.events("alert").first { $0["transition"] as? String == "handoff" })
        #expect(handoff["title"] as? String == "Quick question")
        #expect(handoff["step"] == nil)
    }

    /// Run on a terminal (a pty from util-linux `script`), the card is the way back to the task the
    /// board hears of; stopped, the phone offers none.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/script"), "needs script (bsdutils)"))
    func onATerminalTheCardIsTheReturnEntry() throws {
        let (board, phone) = try pair()
        try board.start()
        defer { board.stop() }
        let binary = try #require(Products.path("aiden-phone"))
        let terminal = Process()
        terminal.executableURL = URL(fileURLWithPath: "/usr/bin/script")
        terminal.arguments = ["-q", "-e", "-c", "exec \(binary) --config \(phone.configPath)", "/dev/null"]
        terminal.environment = ["PATH": "/usr/bin:/bin", "TERM": "dumb"]
        terminal.standardInput = FileHandle.nullDevice
        terminal.standardOutput = FileHandle.nullDevice
        terminal.standardError = FileHandle.nullDevice
        try terminal.run()
        defer {
            if terminal.isRunning { kill(terminal.processIdentifier, SIGKILL) }
            terminal.waitUntilExit()
        }
        #expect(waitUntil { appEntry(board) == "card true" }, "\(appEntry(board) ?? "no report")")
        #expect(appState(board) == "foreground")
        // The phone is script's child; stopped, it reports itself inactive and then script ends.
        let children = "/proc/\(terminal.processIdentifier)/task/\(terminal.processIdentifier)/children"
        let child = try String(contentsOfFile: children, encoding: .utf8).split(separator: " ").first
        let phonePID = try #require(child.flatMap { pid_t($0) })
        kill(phonePID, SIGTERM)
        #expect(waitUntil { appState(board) == "inactive" })
        #expect(appEntry(board) == " false")
        #expect(waitUntil { !terminal.isRunning })
    }

    @Test func aRestartedPhoneRepeatsNoAlertAndReportsItsAppState() throws {
        let (board, phone) = try pair(phoneID: nil)
        try board.start()
        defer { board.stop() }
        try phone.start()
        let id = try ctl(board, ["task", "start", "--title", "Open Settings"])
        _ = try ctl(board, ["task", "update", "--id", id, "--phase", "waiting_user", "--action", "request_user_input"])
        #expect(phone.waitFor { _ in phone.alertCount("handoff") == 1 })
        _ = try ctl(board, ["task", "end", "--id", id, "--status", "completed"])
        #expect(phone.waitFor { _ in phone.alertCount("completed") == 1 })
        #expect(appState(board) == "foreground")

        kill(try #require(phone.process).processIdentifier, SIGUSR2)
        #expect(waitUntil { appState(board) == "background" })
        kill(try #require(phone.process).processIdentifier, SIGUSR1)
        #expect(waitUntil { appState(board) == "foreground" })
        #expect(phone.stop() == 0)
        #expect(appState(board) == "inactive", "SIGTERM reports the app inactive before exiting")

        let phoneID = try String(contentsOfFile: phone.stateDirectory + "/phone-id", encoding: .utf8)
        #expect(phoneID.hasPrefix("phone_") && phoneID.count == 23)
        let mode = try FileManager.default.attributesOfItem(atPath: phone.stateDirectory)[.posixPermissions] as? Int
        #expect(mode == 0o700)

        try phone.start()
        defer { phone.stop() }
        #expect(phone.waitForCard(state("completed", id)))
        try flush(board, phone)
        #expect(phone.alerts.isEmpty, "\(phone.alerts)")
        #expect(try String(contentsOfFile: phone.stateDirectory + "/phone-id", encoding: .utf8) == phoneID)
    }

    /// SIGHUP (the terminal closed) and SIGQUIT (Ctrl-\\) stop the phone the way SIGTERM does: the app reported
    /// inactive, the record and the output written, exit status 0; not the signal's default death.
    @Test(arguments: [SIGHUP, SIGQUIT])
    func sighupAndSigquitStopThePhoneCleanly(signal: Int32) throws {
        let (board, phone) = try pair()
        try board.start()
        defer { board.stop() }
        try phone.start()
        #expect(phone.waitForCard(state("standby")))
        #expect(waitUntil { appState(board) == "foreground" })
        #expect(phone.stop(signal: signal) == 0)
        #expect(appState(board) == "inactive", "reported inactive before exiting")
    }

    @Test func aRestartedBoardKeepsItsEpochAndSequenceAndThePhoneItsCard() throws {
        let (board, phone) = try pair()
        try board.start()
        defer { board.stop() }
        try phone.start()
        defer { phone.stop() }
        let id = try ctl(board, ["task", "start", "--title", "Survives", "--step", "Before"])
        #expect(phone.waitForCard(state("running", id)))
        let before = phone.events("wake")
        let epoch = try #require(before.last?["epoch"] as? Int)
        let lastSeq = try #require(before.compactMap { $0["seq"] as? Int }.max())

        board.stop()
        try board.start()
        #expect(
            phone.waitFor { events in
                events.contains { $0["event"] as? String == "wake" && ($0["seq"] as? Int ?? 0) > lastSeq }
            })
        let after = phone.events("wake").filter { ($0["seq"] as? Int ?? 0) > lastSeq }
        #expect(after.allSatisfy { $0["epoch"] as? Int == epoch && $0["verdict"] as? String == "new" })
        #expect(phone.lastCard?["request_id"] as? String == id)
        #expect(phone.lastCard?["state"] as? String == "running")
        _ = try ctl(board, ["task", "update", "--id", id, "--step", "After"])
        #expect(phone.waitForCard(step("After")))
        // The phone's last fetch may still have been under way when the board stopped (its events read follows the
        // card): such a request finds the board unreachable, and that is all it may find, before the board is back.
        let back = try #require(after.first?["at"] as? String)
        let errors = phone.events("error")
        #expect(
            errors.allSatisfy { $0["kind"] as? String == "unreachable" && ($0["at"] as? String ?? "") < back },
            "\(errors)")
    }

    @Test func aWipedBoardHasANewEpochAndThePhoneStillFetchesAndAlerts() throws {
        let (board, phone) = try pair()
        try board.start()
        defer { board.stop() }
        try phone.start()
        defer { phone.stop() }
        _ = try ctl(board, ["task", "start", "--title", "First life", "--request-id", "chat_same"])
        _ = try ctl(board, ["task", "end", "--id", "chat_same", "--status", "completed"])
        #expect(phone.waitFor { _ in phone.alertCount("completed") == 1 })
        let oldEpoch = try #require(phone.events("wake").last?["epoch"] as? Int)

        board.stop()
        try FileManager.default.removeItem(atPath: board.stateDirectory)
        try board.start()
        #expect(
            phone.waitFor { events in
                events.contains {
                    $0["event"] as? String == "wake" && $0["verdict"] as? String == "new_epoch"
                        && $0["epoch"] as? Int != oldEpoch
                }
            })
        #expect(phone.waitForCard(state("standby")), "the wiped board has no task")
        _ = try ctl(board, ["task", "start", "--title", "Second life", "--request-id", "chat_same"])
        _ = try ctl(board, ["task", "end", "--id", "chat_same", "--status", "completed"])
        #expect(
            phone.waitFor { _ in phone.alertCount("completed") == 2 },
            "the same request id in a new epoch alerts again: \(phone.alerts)")
    }

    @Test func anUnreachableBoardIsAnErrorEventAndACardProblem() throws {
        let phone = try PhoneProcess(boardURL: "http://127.0.0.1:\(try freeLoopbackPort())")
        try phone.start()
        defer { phone.stop() }
        let error = try #require(phone.events("error").first)
        #expect(error["kind"] as? String == "unreachable")
        #expect((error["message"] as? String)?.hasPrefix("board unreachable") == true)
        #expect(phone.lastCard?["problem_kind"] as? String == "unreachable")
        #expect(phone.lastCard?["state"] as? String == "disconnected")
        #expect(phone.isRunning)
    }

    @Test(arguments: [(FakeBoardServer.Behavior.forbidden, "forbidden"), (.malformed, "malformed")])
    func aMisbehavingBoardIsAnErrorEventAndACardProblem(
        _ behavior: FakeBoardServer.Behavior, _ kind: String
    )
        throws
    {
        let server = try FakeBoardServer(behavior)
        let phone = try PhoneProcess(boardURL: server.url)
        try phone.start()
        defer { phone.stop() }
        #expect(phone.waitFor { _ in !phone.events("error").isEmpty })
        #expect(phone.events("error").first?["kind"] as? String == kind)
        #expect(phone.lastCard?["problem_kind"] as? String == kind)
        // Retries back off and the same problem is reported once.
        #expect(phone.waitFor { _ in server.count("/api/live-activity/current") >= 3 })
        #expect(phone.events("error").count == 1)
        #expect(phone.isRunning)
    }

    @Test func aWakeStormCostsABoundedNumberOfFetches() throws {
        let server = try FakeBoardServer(.idle, delayMicroseconds: 50_000)
        let phone = try PhoneProcess(boardURL: server.url)
        try phone.start()
        defer { phone.stop() }
        #expect(phone.waitForCard(state("standby")))
        let before = server.count("/api/live-activity/current")

        let storm = 5_000
        var datagrams: [[UInt8]] = []
        for seq in 1...storm {
            datagrams.append(WakeEnvelope(reason: .liveActivity, epoch: 77, sequence: UInt64(seq)).bytes)
            if seq % 500 == 0 { datagrams.append([1, 4, 77]) }  // malformed ones in the storm (some may be dropped)
        }
        try phone.sendDatagrams(datagrams)
        // Wait until the phone has taken in what reached it (the kernel may drop some) and is quiet.
        var seen = -1
        for _ in 0..<100 where seen != phone.events("wake").count {
            seen = phone.events("wake").count
            usleep(300_000)
        }
        let fetches = server.count("/api/live-activity/current") - before
        #expect(seen > 0)
        #expect(fetches >= 1)
        #expect(fetches <= storm / 50, "\(fetches) fetches for \(seen) Wakes")
        #expect(phone.isRunning)

        // Malformed values are reported and dropped (sent alone: the storm may have lost some).
        try phone.sendDatagrams([[1, 4, 77], Array(repeating: 0, count: 13)])
        #expect(
            phone.waitFor { events in
                events.filter { $0["kind"] as? String == "malformed_wake" }.count >= 2
            })

        // Still listening: one more Wake, one more fetch.
        let now = server.count("/api/live-activity/current")
        try phone.sendDatagrams([WakeEnvelope(reason: .liveActivity, epoch: 77, sequence: UInt64(storm + 1)).bytes])
        #expect(phone.waitFor { _ in server.count("/api/live-activity/current") > now })
    }
}

/// The phone's app state as the board last heard it (`/status` → `phone_app.state`).
private func appState(_ board: BoardProcess) -> String? {
    ((try? board.http("/status"))?.json?["phone_app"] as? [String: Any])?["state"] as? String
}

/// The return entry the board last heard of: `return_entry return_entry_available`.
private func appEntry(_ board: BoardProcess) -> String? {
    guard let app = (try? board.http("/status"))?.json?["phone_app"] as? [String: Any] else { return nil }
    return "\(app["return_entry"] as? String ?? "?") \(app["return_entry_available"] as? Bool ?? false)"
}

/// Waits (bounded) for a condition on something other than the phone's output.
private func waitUntil(timeoutSeconds: Double = 10, _ condition: () -> Bool) -> Bool {
    let deadline = Date().addingTimeInterval(timeoutSeconds)
    while Date() < deadline {
        if condition() { return true }
        usleep(20_000)
    }
    return condition()
}
