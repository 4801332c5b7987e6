import Glibc
import Testing

/// A built executable (aiden-board by default) as a child process with its own configuration and environment.
final class BoardBinary {
    static let path: String? = productPath("aiden-board")

    /// Where `swift build` put the product `name`: beside the test bundle, else `.build/debug`.
    static func productPath(_ name: String) -> String? {
        var candidates: [String] = []
        var buffer = [CChar](repeating: 0, count: 4096)
        let count = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        if count > 0 {
            let exe = String(decoding: buffer[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
            var directory = exe
            // …/.build/debug/AidenBridgePackageTests.xctest (a file on Linux): the products sit beside it.
            if let slash = directory.lastIndex(of: "/") { directory = String(directory[..<slash]) }
            candidates.append(directory + "/" + name)
        }
        let here = #filePath
        if let tests = here.range(of: "/Tests/") {
            candidates.append(String(here[..<tests.lowerBound]) + "/.build/debug/" + name)
        }
        return candidates.first { access($0, X_OK) == 0 }
    }

    let pid: pid_t
    private var exited = false

    /// `wrapper` runs the product through another program that execs it (`ip netns exec NS`), so `pid` is still
    /// the product's.
    init(
        product: String = "aiden-board", arguments: [String], environment: [String: String], log: String,
        wrapper: [String] = []
    ) throws {
        guard let binary = Self.productPath(product) else {
            throw RawHTTP.Failure(description: "\(product) is not built")
        }
        let path = wrapper.first ?? binary
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 1, log, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        let argv: [UnsafeMutablePointer<CChar>?] = (wrapper + [binary] + arguments).map { strdup($0) } + [nil]
        let envp: [UnsafeMutablePointer<CChar>?] = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            argv.forEach { free($0) }
            envp.forEach { free($0) }
        }
        var pid = pid_t()
        let status = posix_spawn(&pid, path, &actions, nil, argv, envp)
        guard status == 0 else { throw RawHTTP.Failure(description: "posix_spawn \(path): \(status)") }
        self.pid = pid
    }

    deinit { kill9() }

    /// Waits (bounded) for the process to end by itself, e.g. a command such as `doctor`; its exit status.
    func exitStatus(within seconds: Double = 30) async throws -> Int32 {
        var status: Int32 = 0
        let pid = pid
        try await eventually("process \(pid) to exit", within: seconds) { waitpid(pid, &status, WNOHANG) == pid }
        exited = true
        return (status >> 8) & 0xff
    }

    func kill9() {
        guard !exited else { return }
        exited = true
        kill(pid, SIGKILL)
        var status: Int32 = 0
        waitpid(pid, &status, 0)
    }
}
