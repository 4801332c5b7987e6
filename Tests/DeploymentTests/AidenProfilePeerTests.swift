import Foundation
import PhoneTestSupport
import Testing

/// The Aiden-profile board the real-stack scenario runs (`Tests/VM/peers/aiden_profile_board.py`, here without BLE
/// and on loopback) against the one the fast tests use (`AidenProfileBoard`): the same changes, through a restart,
/// give the same answer on every path the phone asks, but for the times each stamps by its own clock; and each
/// change's Wake has the same sequence, from 1 again after the restart, with bytes 2–3 zero. (The Python board's
/// reason byte goes round 0 to 5, so the scenario shows the phone fetching on each; the Swift board's is 4.)
@Suite struct AidenProfilePeerTests {
    @Test func thePythonBoardAnswersAsTheSwiftBoardDoes() throws {
        guard let python = tool("/usr/bin/python3"), let curl = tool("/usr/bin/curl") else { return }
        let scratch = try Scratch("aiden-profile-peer")
        let swift = AidenProfileBoard()
        var peer = try PythonBoard(python: python, curl: curl, scratch: scratch)
        defer { peer.stop() }
        // (what the agent does: on the Swift board, and as the Python board's control request)
        let changes: [(String, () -> [UInt8]?, String, String, String)] = [
            (
                "start t1", { swift.start("t1", title: "Open Settings", locale: "de-DE") }, "POST", "/tasks/t1",
                #"{"task_title":"Open Settings","locale":"de-DE"}"#
            ),
            (
                "start t2 for p2", { swift.start("t2", title: "Other", phoneID: "p2") }, "POST", "/tasks/t2",
                #"{"task_title":"Other","phone_id":"p2"}"#
            ),
            (
                "a tool line",
                { swift.update("t1", ["current_step": "Reading", "tool_status": "Screenshot", "progress": 0.4]) },
                "PATCH", "/tasks/t1", #"{"current_step":"Reading","tool_status":"Screenshot","progress":0.4}"#
            ),
            (
                "the same tool line",
                { swift.update("t1", ["current_step": "Still reading", "tool_status": "Screenshot"]) },
                "PATCH", "/tasks/t1", #"{"current_step":"Still reading","tool_status":"Screenshot"}"#
            ),
            (
                "a handoff",
                { swift.update("t1", ["phase": "waiting_user", "current_action": "request_user_input"]) }, "PATCH",
                "/tasks/t1", #"{"phase":"waiting_user","current_action":"request_user_input"}"#
            ),
            (
                "the restart",
                {
                    swift.restart(); return nil
                }, "", "", ""
            ),
            (
                "the tool line cleared", { swift.update("t1", ["tool_status": ""]) }, "PATCH", "/tasks/t1",
                #"{"tool_status":""}"#
            ),
            ("the end", { swift.end("t1") }, "POST", "/tasks/t1/end", #"{"status":"completed"}"#),
        ]
        let targets = [
            ("GET", "/api/live-activity/current?phone_id=p1"), ("GET", "/api/live-activity/current?phone_id=p2"),
            ("GET", "/api/live-activity/status?request_id=t1"), ("GET", "/api/live-activity/status?request_id=nope"),
            ("GET", "/api/live-activity/status"), ("GET", "/api/live-activity/events?since=0"), ("GET", "/status"),
            ("GET", "/api/bluetooth/status"), ("POST", "/api/phone/app-state"),
        ]
        for (name, change, method, path, body) in changes {
            if let wake = change() {
                let answer = try peer.change(method, path, body)
                let sequence = wake[4...].reversed().reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
                #expect(answer["seq"] as? Int == Int(sequence), "\(name): the Wake's sequence")
                #expect(Array(wake[2...3]) == [0, 0] && answer["reason"] as? Int == Int(sequence % 6), "\(name)")
            } else {
                try peer.restart()
            }
            for (method, target) in targets {
                let mine = Self.answer(swift, method, target)
                let theirs = try peer.get(method, target)
                #expect(theirs.status == mine.status, "\(name): \(method) \(target)")
                #expect(
                    Self.comparable(theirs.body) == Self.comparable(mine.body),
                    "\(name): \(method) \(target): \(String(decoding: theirs.body, as: UTF8.self))")
            }
        }
    }

    /// The Swift board's answer to `method target`, as its loopback server gives it.
    static func answer(_ board: AidenProfileBoard, _ method: String, _ target: String) -> (status: Int, body: [UInt8]) {
        let parts = target.split(separator: "?", maxSplits: 1).map(String.init)
        var query: [String: String] = [:]
        for pair in (parts.count > 1 ? parts[1] : "").split(separator: "&") {
            let item = pair.split(separator: "=", maxSplits: 1).map(String.init)
            query[item[0]] = item.count > 1 ? item[1] : ""
        }
        return board.handle(method: method, path: parts[0], query: query)
    }

    /// A body as compared: JSON with each time replaced by whether it is set (each board stamps by its own clock,
    /// RFC 3339 in UTC both), any other body as text.
    static func comparable(_ body: [UInt8]) -> String {
        guard var object = try? JSONSerialization.jsonObject(with: Data(body)) as? [String: Any] else {
            return String(decoding: body, as: UTF8.self)
        }
        if var task = object["live_activity"] as? [String: Any] {
            for key in ["started_at", "updated_at", "ended_at", "tool_started_at"] {
                let stamp = task[key] as? String
                task[key] = stamp.map { $0.hasSuffix("Z") && $0.count == 20 ? "an RFC 3339 time" : $0 } ?? "null"
            }
            object["live_activity"] = task
        }
        let data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
        return data.map { String(decoding: $0, as: UTF8.self) } ?? ""
    }
}

/// `aiden_profile_board.py` without BLE: its phone side on 127.0.0.1 (a port the kernel picks), its agent's
/// Unix socket and its tasks file in a scratch directory; asked with curl.
private struct PythonBoard {
    let python: String
    let curl: String
    let scratch: Scratch
    var process = Process()
    var port = 0

    init(python: String, curl: String, scratch: Scratch) throws {
        self.python = python
        self.curl = curl
        self.scratch = scratch
        try start()
    }

    var control: String { "\(scratch.path)/control.sock" }

    mutating func start() throws {
        let log = "\(scratch.path)/log-\(UUID().uuidString.prefix(8)).jsonl"
        process = Process()
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = [
            "\(Repository.root)/Tests/VM/peers/aiden_profile_board.py", "--listen", "127.0.0.1:0", "--control", control,
            "--state", "\(scratch.path)/tasks.json", "--log", log,
        ]
        try process.run()
        let deadline = Date().addingTimeInterval(20)
        while Date() < deadline {
            let lines = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
            if let line = lines.split(separator: "\n").first(where: { $0.contains(#""listening""#) }),
                let listening = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                let phone = listening["phone"] as? String, let bound = Int(phone.split(separator: ":").last ?? "")
            {
                port = bound
                return
            }
            usleep(20_000)
        }
        throw DeploymentTestError("aiden_profile_board.py did not start: \(log)")
    }

    mutating func restart() throws {
        stop()
        try start()
    }

    /// SIGKILL: the test runner's threads block SIGTERM and a child starts with its parent's mask, so
    /// `terminate()` would leave the board running. Its tasks file is replaced whole at each change.
    func stop() {
        guard process.isRunning else { return }
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    /// One change over the agent's socket; its answer (`seq`, `reason`, `notified`, `taken`).
    func change(_ method: String, _ path: String, _ body: String) throws -> [String: Any] {
        let result = try run(
            curl, ["-sS", "--unix-socket", control, "-X", method, "-d", body, "http://aiden-profile\(path)"],
            timeoutSeconds: 20)
        guard let answer = try? JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any] else {
            throw DeploymentTestError("\(method) \(path): \(result.output) \(result.error)")
        }
        return answer
    }

    /// The phone side's answer to `method target`.
    func get(_ method: String, _ target: String) throws -> (status: Int, body: [UInt8]) {
        let file = "\(scratch.path)/body"
        let result = try run(
            curl, ["-sS", "-X", method, "-o", file, "-w", "%{http_code}", "http://127.0.0.1:\(port)\(target)"],
            timeoutSeconds: 20)
        let body = FileManager.default.contents(atPath: file).map { [UInt8]($0) } ?? []
        return (Int(result.output) ?? 0, body)
    }
}
