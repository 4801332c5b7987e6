import Foundation

/// A tmux server of the test's own: its socket and configuration in a scratch directory, one
/// detached window running one command. A real terminal emulator whose screen the test reads back
/// (`capture-pane`), resizes (`resize-window`, which sends the program SIGWINCH) and measures in
/// cells (copy mode). `stop()` ends the command, then the server.
final class TmuxServer {
    static let binary = "/usr/bin/tmux"

    /// Why tmux cannot run here, or nil when it can: tried once, with a session running `true`.
    static let unavailable: String? = {
        guard FileManager.default.isExecutableFile(atPath: binary) else {
            return "tmux is not installed (apt install tmux; scripts/install-deps installs scripts/packages.txt)"
        }
        do {
            let scratch = try Scratch("aiden-tmux")
            let probe = try TmuxServer(in: scratch)
            defer { probe.stop() }
            try probe.start(columns: 20, rows: 5, ["/bin/true"])
            return nil
        } catch {
            return "tmux cannot run a session here (no pseudo-terminals?): \(error)"
        }
    }()

    let socket: String
    private let configuration: String
    private(set) var panePID: pid_t?

    init(in scratch: Scratch) throws {
        socket = scratch.path + "/tmux.sock"
        configuration = scratch.path + "/tmux.conf"
        // No status line (every row is the program's); a dead pane stays readable; an erase from
        // the first cell of the screen erases (by default tmux first copies the screen into the
        // history, which would keep every card redrawn at the top as if it were left over).
        try "set -g status off\nset -g remain-on-exit on\nset -g scroll-on-clear off\n".write(
            toFile: configuration, atomically: true, encoding: .utf8)
    }

    deinit { stop() }

    /// Runs one tmux command (`;` separates several) against the running server.
    @discardableResult
    func tmux(_ arguments: [String]) throws -> String {
        let result = try runCommand(
            Self.binary, ["-u", "-S", socket, "-f", configuration] + arguments, environment: ["LANG": "C.UTF-8"],
            timeoutSeconds: 10)
        guard result.status == 0 else {
            throw IntegrationError("tmux \(arguments.joined(separator: " ")): exit \(result.status): \(result.error)")
        }
        return result.output
    }

    /// Starts the server with one window `columns` × `rows` running `command` (no shell between).
    func start(columns: Int, rows: Int, _ command: [String]) throws {
        try spawnServer(["new-session", "-d", "-x", "\(columns)", "-y", "\(rows)", "--"] + command)
        let pid = try tmux(["display-message", "-p", "#{pane_pid}"]).trimmingCharacters(in: .whitespacesAndNewlines)
        panePID = pid_t(pid)
    }

    /// The pane's program's exit status once it has exited ("7"), or "" while it runs. tmux 3.3 sometimes never
    /// reaps a program that exited after a Ctrl-C in its pane (seen with a plain python3 too: the pane is dead,
    /// the process a zombie, `pane_dead_status` empty), so the kernel's record of the zombie (`exit_code`, the
    /// last field of /proc/PID/stat) answers then.
    func exitStatus() -> String {
        let told = ((try? tmux(["display-message", "-p", "#{pane_dead_status}"])) ?? "")
            .trimmingCharacters(in: .whitespacesAndNewlines)
        guard told.isEmpty, let pid = panePID,
            let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let end = stat.lastIndex(of: ")")
        else { return told }
        let fields = stat[stat.index(after: end)...].split(separator: " ")
        // After the name: the state is the first field, exit_code the last (a waitpid status).
        guard fields.first == "Z", let code = fields.last.flatMap({ Int($0.trimmingCharacters(in: .newlines)) }),
            code & 0x7f == 0
        else { return told }
        return "\((code >> 8) & 0xff)"
    }

    /// Resizes the window; tmux tells the program with SIGWINCH.
    func resize(columns: Int) throws {
        try tmux(["resize-window", "-x", "\(columns)"])
    }

    /// The visible screen, one string per row, up to the last row with anything on it.
    func rows() throws -> [String] {
        Self.split(try tmux(["capture-pane", "-p"]))
    }

    /// Everything written and not erased, history included, as the lines that were written: rows
    /// a line wrapped onto are joined back, trailing blanks dropped.
    func writtenLines() throws -> [String] {
        Self.split(try tmux(["capture-pane", "-p", "-J", "-S", "-"]))
    }

    /// Cells used on row `row` of the visible screen, as tmux counts them: where copy mode's
    /// end-of-line puts the cursor.
    func cells(ofRow row: Int) throws -> Int {
        var arguments = ["copy-mode", ";", "send-keys", "-X", "top-line"]
        if row > 0 { arguments += [";", "send-keys", "-N", "\(row)", "-X", "cursor-down"] }
        arguments += [
            ";", "send-keys", "-X", "end-of-line", ";", "display-message", "-p", "#{copy_cursor_x}", ";",
            "send-keys", "-X", "cancel",
        ]
        let answer = try tmux(arguments).trimmingCharacters(in: .whitespacesAndNewlines)
        guard let cells = Int(answer) else { throw IntegrationError("tmux copy_cursor_x: \(answer)") }
        return cells
    }

    /// The visible rows and the cells each takes, all from one still screen: the rows are read again after the
    /// cells are counted (one tmux command each), and the whole read is repeated while a redraw (the card's
    /// elapsed time, every second) fell between them. Nil when the screen never held still for a read.
    func stillRows(attempts: Int = 10) throws -> [(text: String, cells: Int)]? {
        for _ in 0..<attempts {
            let before = try rows()
            let cells = try before.indices.map { try self.cells(ofRow: $0) }
            if try rows() == before { return Array(zip(before, cells)).map { (text: $0.0, cells: $0.1) } }
        }
        return nil
    }

    /// Waits (bounded) until `condition` holds on the written lines; returns whether it did.
    @discardableResult
    func waitFor(timeoutSeconds: Double = 15, _ condition: ([String]) -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(timeoutSeconds)
        while Date() < deadline {
            if let lines = try? writtenLines(), condition(lines) { return true }
            usleep(20_000)
        }
        return (try? writtenLines()).map(condition) ?? false
    }

    /// Whether the window's program still runs (tmux has not reaped it).
    var isRunning: Bool {
        (try? tmux(["display-message", "-p", "#{pane_dead}"]))?.trimmingCharacters(in: .whitespacesAndNewlines) == "0"
    }

    /// Ends the program with SIGTERM (SIGKILL after 10 s), then the server. Signals only a program
    /// tmux still runs, so never a process that took over its id.
    func stop() {
        if let pid = panePID, isRunning {
            kill(pid, SIGTERM)
            let deadline = Date().addingTimeInterval(10)
            while isRunning && Date() < deadline { usleep(10_000) }
            if isRunning { kill(pid, SIGKILL) }
        }
        panePID = nil
        if FileManager.default.fileExists(atPath: socket) { _ = try? tmux(["kill-server"]) }
    }

    /// Runs the tmux command that starts the server with `cleanSpawn` rather than `Process`: the
    /// server would keep the descriptor by which `Process` learns that its child ended (so waiting
    /// for the client would wait for the server), and inherit the signal mask of the test's
    /// thread, which blocks nearly every signal (the server reaps its windows' programs on SIGCHLD).
    private func spawnServer(_ arguments: [String]) throws {
        let log = configuration + ".log"
        let pid = try cleanSpawn(
            [Self.binary, "-u", "-S", socket, "-f", configuration] + arguments,
            environment: ["LANG=C.UTF-8", "PATH=/usr/bin:/bin"], log: log)
        var status: Int32 = 0
        let deadline = Date().addingTimeInterval(10)
        while waitpid(pid, &status, WNOHANG) == 0 {
            guard Date() < deadline else {
                kill(pid, SIGKILL)
                waitpid(pid, &status, 0)
                throw IntegrationError("tmux \(arguments.first ?? ""): no answer in 10 s")
            }
            usleep(10_000)
        }
        // Exited normally with status 0: no signal in the low 7 bits, 0 in the next 8.
        guard status == 0 else {
            let output = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
            throw IntegrationError("tmux \(arguments.joined(separator: " ")): wait status \(status): \(output)")
        }
    }

    private static func split(_ text: String) -> [String] {
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map { line in
            String(line[..<(line.lastIndex { $0 != " " }.map(line.index(after:)) ?? line.startIndex)])
        }
        while lines.last?.isEmpty == true { lines.removeLast() }
        return lines
    }
}
