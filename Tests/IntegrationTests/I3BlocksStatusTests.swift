import Foundation
import Testing

/// The i3blocks snippet of docs/desktop.md, as written there, under the real i3blocks (Debian's, headless: it
/// writes the i3bar protocol to its stdout, which is what i3bar or sway's bar would read): the block shows the
/// card's line as it changes, from a running aiden-phone that follows a real aiden-board over loopback.
@Suite(.serialized) struct I3BlocksStatusTests {
    /// The `ini` block that follows "i3blocks" in docs/desktop.md.
    static func documentedSnippet() throws -> String {
        let docs = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("docs/desktop.md")
        let text = try String(contentsOf: docs, encoding: .utf8)
        guard let heading = text.range(of: "\ni3blocks ("),
            let open = text.range(of: "```ini\n", range: heading.upperBound..<text.endIndex),
            let close = text.range(of: "```", range: open.upperBound..<text.endIndex)
        else { throw IntegrationError("docs/desktop.md has no i3blocks ini block") }
        return String(text[open.upperBound..<close.lowerBound])
    }

    /// i3blocks with its stdout read as it comes: the `full_text` of the block named `aiden` in each status line.
    final class Bar {
        let process = Process()
        private let texts = Mutexed<[String]>([])
        /// Where i3bar would write click events: held open, as i3bar holds it (i3blocks stops when it cannot read it).
        private let clicks = Pipe()

        let errors: String

        init(config: String, path: String, environment: [String: String]) throws {
            process.executableURL = URL(fileURLWithPath: "/usr/bin/i3blocks")
            process.arguments = ["-c", config]
            process.environment = ["PATH": path].merging(environment) { $1 }
            let output = Pipe()
            process.standardInput = clicks
            process.standardOutput = output
            errors = config + ".err"
            _ = FileManager.default.createFile(atPath: errors, contents: nil)
            process.standardError = FileHandle(forWritingAtPath: errors)
            try process.run()
            let sink = texts
            LineReader.start(output) { line in
                if let text = Self.blockText(line) { sink.update { $0.append(text) } }
            }
        }

        /// i3blocks outlives SIGTERM while its block runs, and the block inherits the descriptor by which Foundation
        /// learns of i3blocks' exit: the whole tree goes, the block first.
        deinit {
            for pid in Self.descendants(of: process.processIdentifier) + [process.processIdentifier] {
                kill(pid, SIGKILL)
            }
            process.waitUntilExit()
        }

        /// Every process below `root`, deepest last, from `/proc/<pid>/stat`.
        static func descendants(of root: Int32) -> [Int32] {
            var parents: [Int32: [Int32]] = [:]
            let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
            for entry in entries {
                guard let pid = Int32(entry),
                    let stat = try? String(contentsOfFile: "/proc/\(entry)/stat", encoding: .utf8),
                    let close = stat.lastIndex(of: ")")
                else { continue }
                // After "pid (comm) ": the state, then the parent's pid.
                let fields = stat[stat.index(after: close)...].split(separator: " ")
                if fields.count > 1, let parent = Int32(fields[1]) { parents[parent, default: []].append(pid) }
            }
            var found: [Int32] = []
            var queue = [root]
            while let next = queue.popLast() {
                let children = parents[next] ?? []
                found += children
                queue += children
            }
            return found
        }

        /// One line of the i3bar protocol's endless array (`[{…},{…}]`, after the first with a leading comma).
        static func blockText(_ line: Data) -> String? {
            var bytes = line
            if bytes.first == UInt8(ascii: ",") { bytes.removeFirst() }
            guard let blocks = try? JSONSerialization.jsonObject(with: bytes) as? [[String: Any]] else { return nil }
            return blocks.first { $0["name"] as? String == "aiden" }?["full_text"] as? String
        }

        /// The texts the block showed, one per status line that had it (i3blocks repeats it on other blocks' lines).
        var shown: [String] {
            texts.get().reduce(into: []) { list, text in if list.last != text { list.append(text) } }
        }

        /// Waits (bounded) until the block shows `text`.
        func waitFor(_ text: String, timeoutSeconds: Double = 20) -> Bool {
            let deadline = Date().addingTimeInterval(timeoutSeconds)
            while Date() < deadline {
                if shown.last == text { return true }
                usleep(10_000)
            }
            return false
        }
    }

    @Test func theDocumentedBlockShowsTheCardAsItChanges() throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/i3blocks") else {
            throw IntegrationError("i3blocks is not installed (scripts/install-deps installs it)")
        }
        guard let binary = Products.path("aiden-phone") else { throw IntegrationError("aiden-phone not built") }
        let snippet = try Self.documentedSnippet()
        #expect(snippet.contains("command=aiden-phone status --follow\n"), "\(snippet)")
        let runtime = try Scratch("aiden-run")
        chmod(runtime.path, 0o700)
        let environment = ["XDG_RUNTIME_DIR": runtime.path]
        let config = runtime.path + "/i3blocks.conf"
        try snippet.write(toFile: config, atomically: true, encoding: .utf8)

        let wakePort = try freeLoopbackPort()
        let board = try BoardProcess(wakeTarget: "127.0.0.1:\(wakePort)")
        try board.start()
        defer { board.stop() }
        let phone = try PhoneProcess(boardURL: "http://127.0.0.1:\(board.port)", wakePort: wakePort)
        try phone.start(environment: environment)
        defer { phone.stop() }
        #expect(phone.waitForCard { $0["state"] as? String == "standby" })
        let connected = try phone.barLine("Connected to the board", binary: binary, environment: environment)
        #expect(connected.output == "Connected to the board\n", "\(connected)")

        // The snippet names the command as a person types it: found on PATH, as installed.
        let path = URL(fileURLWithPath: binary).deletingLastPathComponent().path + ":/usr/bin:/bin"
        let bar = try Bar(config: config, path: path, environment: environment)
        let errors = (try? String(contentsOfFile: bar.errors, encoding: .utf8)) ?? ""
        #expect(bar.waitFor("Connected to the board"), "\(bar.shown); i3blocks said: \(errors)")

        let started = try board.aidenctl(["task", "start", "--title", "Open Settings", "--step", "Planning"])
        #expect(started.status == 0, "\(started.error)")
        let id = started.lastLine
        #expect(bar.waitFor("Open Settings — Planning"), "\(bar.shown)")
        let asked = try board.aidenctl([
            "task", "update", "--id", id, "--phase", "waiting_user", "--action", "request_user_input",
            "--step", "Enter the PIN",
        ])
        #expect(asked.status == 0, "\(asked.error)")
        #expect(bar.waitFor("Your turn: Open Settings — Enter the PIN"), "\(bar.shown)")
        #expect(
            bar.shown == [
                "Connected to the board", "Open Settings — Planning", "Your turn: Open Settings — Enter the PIN",
            ])

        // The client goes: the block says so (the follower keeps running), and shows the card again when it is back.
        phone.stop()
        #expect(bar.waitFor("aiden-phone is not running"), "\(bar.shown)")
        try phone.start(environment: environment)
        #expect(bar.waitFor("Your turn: Open Settings — Enter the PIN"), "\(bar.shown)")
    }
}
