import Glibc
import Synchronization

/// A private `dbus-daemon` for one test: its own config and socket in a fresh temporary directory, killed and
/// removed by `stop()` (or when released).
package final class PrivateBus: Sendable {
    package struct StartError: Error, CustomStringConvertible {
        package let description: String

        package init(description: String) {
            self.description = description
        }
    }

    /// Where dbus-daemon is, if installed; integration tests are skipped without it.
    package static let daemonPath: String? = ["/usr/bin/dbus-daemon", "/bin/dbus-daemon", "/usr/local/bin/dbus-daemon"]
        .first { access($0, X_OK) == 0 }

    package static let skipMessage =
        "dbus-daemon is not installed (apt install dbus): D-Bus integration tests skipped"

    package let address: String
    private let pid: pid_t
    private let directory: String
    private let outputFD: Int32
    private let stopped = Atomic<Bool>(false)

    private init(address: String, pid: pid_t, directory: String, outputFD: Int32) {
        self.address = address
        self.pid = pid
        self.directory = directory
        self.outputFD = outputFD
    }

    deinit {
        stop()
    }

    package static func start() throws -> PrivateBus {
        guard let daemon = daemonPath else { throw StartError(description: "dbus-daemon not found") }
        var template = Array("/tmp/aiden-dbus-test-XXXXXX".utf8CString)
        guard let created = mkdtemp(&template) else { throw StartError(description: "mkdtemp failed: \(errno)") }
        let directory = String(cString: created)
        let configPath = directory + "/bus.conf"
        try write(config(socket: directory + "/bus"), to: configPath)

        var pipeFDs: [Int32] = [0, 0]
        guard pipe(&pipeFDs) == 0 else { throw StartError(description: "pipe failed: \(errno)") }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, pipeFDs[1], 1)
        // Its warnings (it cannot raise the fd limit unprivileged) would only clutter the test output.
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        // Nothing else of this process goes along: tests run in parallel, and a daemon that kept another test's
        // pipe open (a `Process`'s output being read to its end) would hold that test up for the daemon's life.
        // What is open is listed just before the spawn (glibc's `addclosefrom_np` is not visible to Swift here),
        // so a pipe another thread opens in those microseconds still goes along; before, every open one did.
        for descriptor in ProcessProbe(pid: getpid()).descriptorNumbers() ?? [] where descriptor > 2 {
            posix_spawn_file_actions_addclose(&actions, descriptor)
        }
        let arguments = [daemon, "--config-file=" + configPath, "--nofork", "--nopidfile", "--print-address=1"]
        var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid = pid_t()
        let status = posix_spawn(&pid, daemon, &actions, nil, &argv, environ)
        close(pipeFDs[1])
        guard status == 0 else {
            close(pipeFDs[0])
            throw StartError(description: "posix_spawn dbus-daemon failed: \(status)")
        }
        do {
            let address = try readLine(from: pipeFDs[0], timeoutMilliseconds: 10_000)
            return PrivateBus(address: address, pid: pid, directory: directory, outputFD: pipeFDs[0])
        } catch {
            terminate(pid: pid, directory: directory, outputFD: pipeFDs[0])
            throw error
        }
    }

    /// Kills the daemon (every connection to it sees the bus disappear) and removes its directory.
    package func stop() {
        guard !stopped.exchange(true, ordering: .acquiringAndReleasing) else { return }
        Self.terminate(pid: pid, directory: directory, outputFD: outputFD)
    }

    private static func terminate(pid: pid_t, directory: String, outputFD: Int32) {
        kill(pid, SIGKILL)  // the daemon may inherit a blocked SIGTERM from a dispatch thread
        var status: Int32 = 0
        waitpid(pid, &status, 0)
        close(outputFD)
        unlink(directory + "/bus.conf")
        unlink(directory + "/bus")
        rmdir(directory)
    }

    private static func config(socket: String) -> String {
        """
        <!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
         "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
        <busconfig>
          <type>session</type>
          <listen>unix:path=\(socket)</listen>
          <auth>EXTERNAL</auth>
          <policy context="default">
            <allow send_destination="*" eavesdrop="true"/>
            <allow eavesdrop="true"/>
            <allow own="*"/>
          </policy>
        </busconfig>

        """
    }

    private static func write(_ text: String, to path: String) throws {
        guard let file = fopen(path, "w") else { throw StartError(description: "cannot write \(path)") }
        defer { fclose(file) }
        guard fputs(text, file) >= 0 else { throw StartError(description: "cannot write \(path)") }
    }

    /// Reads the address line the daemon prints once it listens, bounded by a timeout.
    private static func readLine(from fd: Int32, timeoutMilliseconds: Int32) throws -> String {
        var collected: [UInt8] = []
        while !collected.contains(UInt8(ascii: "\n")) {
            var descriptor = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&descriptor, 1, timeoutMilliseconds) == 1 else {
                throw StartError(description: "dbus-daemon printed no address within \(timeoutMilliseconds) ms")
            }
            var buffer = [UInt8](repeating: 0, count: 512)
            let count = read(fd, &buffer, buffer.count)
            guard count > 0 else { throw StartError(description: "dbus-daemon exited before printing its address") }
            collected += buffer[0..<count]
        }
        let line = String(decoding: collected, as: UTF8.self).split(separator: "\n").first ?? ""
        return String(line)
    }
}
