import Dispatch
import Glibc
import Synchronization
import TestSupport
import Testing

/// The fake bluetoothd (`Fixtures/fake_bluetoothd.py`) as a child process on a private bus: it owns
/// `org.bluez` and prints one line per event, which `waitForLine` reads without sleeping.
final class FakeBluetoothd: Sendable {
    static let python = "/usr/bin/python3"
    static let script: String = {
        let here = #filePath
        let tests = here[..<(here.range(of: "/Support/")?.lowerBound ?? here.endIndex)]
        return tests + "/Fixtures/fake_bluetoothd.py"
    }()

    /// Whether python3 with dbus and gi is installed (scripts/packages.txt: python3-dbus, python3-gi).
    static let available: Bool = {
        guard access(python, X_OK) == 0, PrivateBus.daemonPath != nil else { return false }
        let pid = spawn(
            [python, "-c", "import dbus, dbus.service, dbus.mainloop.glib; from gi.repository import GLib"],
            stdout: nil)
        guard let pid else { return false }
        var status: Int32 = 0
        waitpid(pid, &status, 0)
        return status == 0
    }()

    static let skipMessage: Comment = "needs dbus-daemon, python3-dbus and python3-gi (scripts/packages.txt)"

    private let pid: pid_t
    private let lines = Mutex<[(at: Double, line: String)]>([])
    private let changed = Mailbox<Void>()
    private let stopped = Atomic<Bool>(false)
    let uniqueName: String
    /// When its `ready` line was read (`monotonicSeconds`): it owns `org.bluez` from then on.
    let readyAt: Double

    private init(pid: pid_t, uniqueName: String, readyAt: Double) {
        self.pid = pid
        self.uniqueName = uniqueName
        self.readyAt = readyAt
    }

    deinit { stop() }

    /// Starts the fake and waits until it owns `org.bluez`.
    static func start(bus: PrivateBus, role: String, extra: [String] = []) async throws -> FakeBluetoothd {
        var fds: [Int32] = [0, 0]
        guard pipe(&fds) == 0 else { throw PrivateBus.StartError(description: "pipe failed") }
        guard let pid = spawn([python, "-u", script, "--bus", bus.address, "--role", role] + extra, stdout: fds[1])
        else {
            close(fds[0])
            close(fds[1])
            throw PrivateBus.StartError(description: "cannot start \(script)")
        }
        close(fds[1])
        let reader = LineReader(fd: fds[0])
        let first = try await reader.next(within: 15, "the fake bluetoothd to start")
        guard first.hasPrefix("ready ") else {
            kill(pid, SIGKILL)
            throw PrivateBus.StartError(description: "fake bluetoothd said: \(first)")
        }
        let fake = FakeBluetoothd(pid: pid, uniqueName: String(first.dropFirst(6)), readyAt: monotonicSeconds())
        DispatchQueue.global().async { [fake] in reader.pump { fake.append($0) } }
        return fake
    }

    private func append(_ line: String) {
        let now = monotonicSeconds()
        lines.withLock { $0.append((now, line)) }
        changed.put(())
    }

    var allLines: [String] { lines.withLock { $0.map(\.line) } }

    /// When the first line satisfying `predicate` was read (`monotonicSeconds`), if one was.
    func firstTime(of predicate: (String) -> Bool) -> Double? {
        lines.withLock { lines in lines.first { predicate($0.line) }?.at }
    }

    /// Waits until some line satisfies `predicate` (also among the lines already read) and returns the lines
    /// read so far.
    @discardableResult
    func waitFor(
        _ what: String, within seconds: Double = 30, _ predicate: @escaping @Sendable ([String]) -> Bool
    ) async throws -> [String] {
        while true {
            let current = allLines
            if predicate(current) { return current }
            do {
                try await changed.next(within: seconds, what)
            } catch {
                let text: String = "fake bluetoothd lines so far:\n" + allLines.joined(separator: "\n")
                Issue.record(Comment(rawValue: text))
                throw error
            }
        }
    }

    /// SIGKILL, like a crash of bluetoothd: its name leaves the bus at once.
    func stop() {
        guard !stopped.exchange(true, ordering: .acquiringAndReleasing) else { return }
        kill(pid, SIGKILL)
        var status: Int32 = 0
        waitpid(pid, &status, 0)
    }

    private static func spawn(_ arguments: [String], stdout: Int32?) -> pid_t? {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        if let stdout {
            posix_spawn_file_actions_adddup2(&actions, stdout, 1)
        } else {
            posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        }
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid = pid_t()
        guard posix_spawn(&pid, arguments[0], &actions, nil, &argv, environ) == 0 else { return nil }
        return pid
    }
}

/// Reads lines from a pipe: the first ones on demand (bounded by `poll`), the rest on a thread of their own.
final class LineReader: @unchecked Sendable {
    // Only touched by one thread at a time: first by `next` during start, then by `pump`.
    private let fd: Int32
    private var buffer: [UInt8] = []

    init(fd: Int32) { self.fd = fd }

    func next(within seconds: Double, _ what: String) async throws -> String {
        let deadline = monotonicSeconds() + seconds
        while true {
            if let line = takeLine() { return line }
            let remaining = Int32(max(0, (deadline - monotonicSeconds()) * 1000))
            var descriptor = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard remaining > 0, poll(&descriptor, 1, remaining) == 1, readMore() else {
                throw DeadlineExceeded(what: what)
            }
        }
    }

    /// Blocks reading until end of file, handing over each line.
    func pump(_ handle: (String) -> Void) {
        while true {
            while let line = takeLine() { handle(line) }
            guard readMore() else { break }
        }
        close(fd)
    }

    private func readMore() -> Bool {
        var chunk = [UInt8](repeating: 0, count: 4096)
        let count = read(fd, &chunk, chunk.count)
        guard count > 0 else { return false }
        buffer += chunk[0..<count]
        return true
    }

    private func takeLine() -> String? {
        guard let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) else { return nil }
        let line = String(decoding: buffer[..<newline], as: UTF8.self)
        buffer.removeSubrange(...newline)
        return line
    }
}
