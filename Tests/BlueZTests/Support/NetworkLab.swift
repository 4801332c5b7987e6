import Glibc
import Testing

/// The network namespaces of `scripts/netns-lab` (root only): the board at 192.168.42.1 and the phone at
/// 192.168.42.2 on one link (the "USB ECM link"), an outsider at 10.99.0.2 routed in from another subnet. Traffic
/// stays inside them; nothing is bound or sent in the root namespace.
struct NetworkLab {
    static let ip = "/usr/sbin/ip"
    static let curlPath = "/usr/bin/curl"
    static let why: Comment = "needs root, iproute2 and curl to build network namespaces (CI runs as root)"

    static var available: Bool { getuid() == 0 && access(ip, X_OK) == 0 && access(curlPath, X_OK) == 0 }

    static let script: String = {
        let here = #filePath
        return String(here[..<(here.range(of: "/Tests/")?.lowerBound ?? here.endIndex)]) + "/scripts/netns-lab"
    }()

    let prefix: String
    var board: String { prefix + "-board" }
    var phone: String { prefix + "-phone" }
    var outsider: String { prefix + "-outsider" }

    /// Builds the namespaces (`down` removes them).
    static func up() throws -> NetworkLab {
        let lab = NetworkLab(prefix: "abp\(getpid() % 100_000)")
        let (status, output) = try run(["/bin/bash", script, "up", lab.prefix])
        guard status == 0 else { throw RawHTTP.Failure(description: "netns-lab up failed: \(output)") }
        return lab
    }

    func down() {
        _ = try? Self.run(["/bin/bash", Self.script, "down", prefix])
    }

    /// `ip netns exec NS` as a wrapper for a program that should run there.
    func wrapper(_ namespace: String) -> [String] { [Self.ip, "netns", "exec", namespace] }

    /// curl (at most 5 s) from inside `namespace`: the status code and the body.
    func curl(from namespace: String, _ arguments: [String]) throws -> (status: Int, body: String) {
        let (_, output) = try Self.run(
            wrapper(namespace) + [Self.curlPath, "-s", "--max-time", "5", "-w", "\n%{http_code}"] + arguments)
        let lines = output.split(separator: "\n", omittingEmptySubsequences: false)
        return (Int(lines.last ?? "") ?? 0, lines.dropLast().joined(separator: "\n"))
    }

    /// Runs `argv` to completion (each program here is bounded: curl by `--max-time`, the lab script by its
    /// own wait), stdout and stderr together.
    static func run(_ argv: [String]) throws -> (status: Int32, output: String) {
        var template = Array("/tmp/aiden-netns-out-XXXXXX".utf8CString)
        let fd = mkstemp(&template)
        guard fd >= 0 else { throw RawHTTP.Failure(description: "mkstemp: errno \(errno)") }
        let outputPath = String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        defer {
            close(fd)
            unlink(outputPath)
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, fd, 1)
        posix_spawn_file_actions_adddup2(&actions, fd, 2)
        let arguments: [UnsafeMutablePointer<CChar>?] = argv.map { strdup($0) } + [nil]
        let environment: [UnsafeMutablePointer<CChar>?] = [strdup("PATH=/usr/sbin:/usr/bin:/sbin:/bin"), nil]
        defer {
            arguments.forEach { free($0) }
            environment.forEach { free($0) }
        }
        var pid = pid_t()
        let spawned = posix_spawn(&pid, argv[0], &actions, nil, arguments, environment)
        guard spawned == 0 else { throw RawHTTP.Failure(description: "posix_spawn \(argv[0]): \(spawned)") }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        lseek(fd, 0, SEEK_SET)
        while true {
            let count = read(fd, &chunk, chunk.count)
            guard count > 0 else { break }
            bytes += chunk[0..<count]
        }
        let exited = status & 0x7f == 0
        return (exited ? (status >> 8) & 0xff : -1, String(decoding: bytes, as: UTF8.self))
    }
}
