import Foundation
import Testing

/// `aiden-phone status [--follow] [--json]` against a running aiden-phone that follows a real aiden-board over
/// loopback: one line now, exactly one more per change of the card, one `offline` line when the client goes, and
/// the line again when it is back (docs/desktop.md).
@Suite(.serialized) struct BarStatusFollowTests {
    /// `aiden-phone status --follow`, its stdout read line by line as it comes.
    final class Follower {
        let process = Process()
        private let lines = Mutexed<[String]>([])
        private let reader = DispatchGroup()

        init(binary: String, arguments: [String], environment: [String: String]) throws {
            process.executableURL = URL(fileURLWithPath: binary)
            process.arguments = arguments
            process.environment = ["PATH": "/usr/bin:/bin"].merging(environment) { $1 }
            let output = Pipe()
            process.standardOutput = output
            process.standardError = FileHandle.nullDevice
            try process.run()
            let sink = lines
            LineReader.start(output, group: reader) { line in
                sink.update { $0.append(String(decoding: line, as: UTF8.self)) }
            }
        }

        deinit {
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
            process.waitUntilExit()
        }

        var objects: [[String: Any]] {
            lines.get().map { (try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]) ?? [:] }
        }
        var count: Int { lines.get().count }

        /// Waits (bounded) until there are `count` lines, the last satisfying `condition`.
        func waitFor(_ count: Int, timeoutSeconds: Double = 20, _ condition: ([String: Any]) -> Bool) -> Bool {
            let deadline = Date().addingTimeInterval(timeoutSeconds)
            while Date() < deadline {
                let objects = self.objects
                if objects.count >= count, let last = objects.last, condition(last) { return true }
                usleep(10_000)
            }
            return false
        }
    }

    private func ctl(_ board: BoardProcess, _ arguments: [String]) throws -> String {
        let result = try board.aidenctl(arguments)
        guard result.status == 0 else { throw IntegrationError("aidenctl \(arguments): \(result.error)") }
        return result.lastLine
    }

    private func kind(_ value: String) -> ([String: Any]) -> Bool { { $0["class"] as? String == value } }

    @Test func eachChangeOfTheCardIsExactlyOneNewLineAndTheFollowerOutlivesTheClient() throws {
        guard let binary = Products.path("aiden-phone") else { throw IntegrationError("aiden-phone not built") }
        let runtime = try Scratch("aiden-run")
        chmod(runtime.path, 0o700)
        let environment = ["XDG_RUNTIME_DIR": runtime.path]

        // No client: one clear line and 69, at once.
        let absent = try runCommand(binary, ["status"], environment: environment, timeoutSeconds: 10)
        #expect(absent.status == 69)
        #expect(absent.output.isEmpty)
        #expect(
            absent.error.hasPrefix(
                "aiden-phone: status: no aiden-phone answers at \(runtime.path)/aiden-phone/status.sock"))
        #expect(absent.error.split(separator: "\n").count == 1, "\(absent.error)")

        let wakePort = try freeLoopbackPort()
        let board = try BoardProcess(wakeTarget: "127.0.0.1:\(wakePort)")
        try board.start()
        defer { board.stop() }
        let phone = try PhoneProcess(boardURL: "http://127.0.0.1:\(board.port)", wakePort: wakePort)
        try phone.start(environment: environment)
        defer { phone.stop() }
        #expect(phone.waitForCard { $0["state"] as? String == "standby" })

        let once = try phone.barLine("Connected to the board", binary: binary, environment: environment)
        #expect(once.status == 0, "\(once.error)")
        #expect(once.output == "Connected to the board\n")

        let follower = try Follower(
            binary: binary, arguments: ["status", "--follow", "--json"], environment: environment)
        #expect(follower.waitFor(1, kind("standby")), "\(follower.objects)")

        let id = try ctl(
            board, ["task", "start", "--title", "Open Settings", "--step", "Planning", "--progress", "0.2"])
        #expect(follower.waitFor(2, kind("running")), "\(follower.objects)")
        #expect(phone.waitForCard { $0["request_id"] as? String == id })
        _ = try ctl(
            board,
            [
                "task", "update", "--id", id, "--phase", "waiting_user", "--action", "request_user_input",
                "--step", "Enter the PIN",
            ])
        #expect(follower.waitFor(3, kind("handoff")), "\(follower.objects)")
        #expect(phone.waitForCard { $0["state"] as? String == "handoff" })
        // The phone has shown the handoff: nothing else is coming, and no second line for it came.
        usleep(1_500_000)
        #expect(follower.count == 3, "\(follower.objects)")
        let handoff = try #require(follower.objects.last)
        #expect(handoff["text"] as? String == "Your turn: Open Settings — Enter the PIN")
        #expect(handoff["tooltip"] as? String == "Open Settings: your turn — Enter the PIN")

        // The client goes: one offline line, and the follower waits for it quietly.
        phone.stop()
        #expect(follower.waitFor(4, kind("offline")), "\(follower.objects)")
        #expect(follower.process.isRunning)
        try phone.start(environment: environment)
        #expect(follower.waitFor(5, kind("handoff")), "\(follower.objects)")
        usleep(500_000)
        #expect(follower.count == 5, "\(follower.objects)")
    }
}
