import AgentCLI
import FoundationEssentials
import Platform

/// The sessions' hook state as small files, one per session, in `$XDG_RUNTIME_DIR/aidenbridge/hooks` (else
/// `/tmp/aidenbridge-hooks-UID`), mode 0700: written atomically (`AtomicFile`) and read and written under the
/// session's lock (`FileLock`), so hooks of one session that run at once take turns. A state that cannot be kept
/// (no directory, a lock not had within 10 s) is a fresh one, never a failed hook.
struct HookStateFile: HookStateStore {
    let directory: String?

    init(environment: [String: String]) {
        let runtime = environment["XDG_RUNTIME_DIR"].flatMap { $0.hasPrefix("/") ? $0 : nil }
        let parent = runtime.map { $0 + "/aidenbridge" }
        let directory = parent.map { $0 + "/hooks" } ?? "/tmp/aidenbridge-hooks-\(CurrentProcess.userID())"
        let made = [parent, directory].compactMap { $0 }.allSatisfy(Self.ownDirectory)
        self.directory = made ? directory : nil
    }

    func withState<Result>(_ key: String, _ body: (inout HookState) -> Result) -> Result {
        guard let directory else {
            var state = HookState()
            return body(&state)
        }
        let path = "\(directory)/\(key).json"
        let lock = Self.lock(path + ".lock")
        let file = AtomicFile(path: path)
        var state = HookState()
        if let bytes = try? file.read(), let read = try? JSONDecoder().decode(HookState.self, from: Data(bytes)) {
            state = read
        }
        let before = state
        let result = body(&state)
        if lock != nil, state != before, let bytes = try? JSONEncoder().encode(state) { try? file.write(Array(bytes)) }
        withExtendedLifetime(lock) {}
        return result
    }

    /// The lock, waited for 10 s at most (another hook of the session holds it while it talks to the board).
    private static func lock(_ path: String) -> FileLock? {
        for _ in 0..<500 {
            do {
                return try FileLock.acquire(path)
            } catch {
                guard case .held = error else { return nil }
            }
            ThreadSleep.sleep(for: .milliseconds(20))
        }
        return nil
    }

    /// `path` is a directory of this user's, mode 0700 (made when missing); not one someone else made for us.
    private static func ownDirectory(_ path: String) -> Bool {
        (try? POSIXFileSystem().makePrivateDirectory(at: path)) != nil
    }
}
