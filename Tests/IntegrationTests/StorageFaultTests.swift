import Foundation
import LiveActivity
import TestSupport
import Testing

/// The fault suite's storage tests (docs/fault-suite.md): the built aiden-board with its state directory on a
/// small tmpfs this test mounts (and unmounts), filled to the last byte or remounted read-only under the
/// running daemon. An agent's durable write gets a clear error naming the file and the reason, the daemon
/// keeps serving what it has to the phone and the agent, nothing on disk is corrupt, and once the disk is
/// usable again writes succeed and a restart finds every acknowledged change.
@Suite(.serialized, .enabled(if: getuid() == 0, "mounting a tmpfs for the state directory needs root"))
struct StorageFaultTests {
    @Test func aFullDiskRefusesDurableWritesAndLosesNothing() throws {
        let board = try BoardProcess(coalesceMilliseconds: 50)
        let mount = try TmpfsMount(at: board.stateDirectory, kilobytes: 512)
        defer { mount.unmount() }
        try board.start()
        defer { board.stop() }
        let endpoints = BoardEndpoints(board)
        let before = try #require(
            endpoints.agent("POST", "/v1/tasks", body: #"{"task_title":"Before","request_id":"full_1"}"#))
        #expect(before.status == 201)

        let filler = try mount.fill()
        let refused = try #require(
            endpoints.agent("POST", "/v1/tasks", body: #"{"task_title":"Refused","request_id":"full_2"}"#))
        #expect(refused.status == 503, "\(refused.text)")
        let error = refused.json?["error"] as? [String: Any]
        #expect(error?["code"] as? String == "storage_failed")
        let message = error?["message"] as? String ?? ""
        #expect(message.contains("tasks.json") && message.contains("No space left on device"), "\(message)")
        let end = try #require(endpoints.agent("POST", "/v1/tasks/full_1/end", body: #"{"status":"completed"}"#))
        #expect(end.status == 503, "an end must be durable before it is answered: \(end.text)")
        // A progress update is answered at once and written within a second: the write fails and is retried.
        let lazy = try #require(endpoints.agent("PATCH", "/v1/tasks/full_1", body: #"{"current_step":"while full"}"#))
        #expect(lazy.status == 200)

        // The daemon keeps serving what it has.
        let current = try #require(endpoints.phone("/api/live-activity/current"))
        #expect(current.status == 200)
        #expect((current.json?["live_activity"] as? [String: Any])?["current_step"] as? String == "while full")
        #expect(endpoints.phone("/status")?.status == 200)
        #expect(endpoints.agent("GET", "/v1/tasks/full_2")?.status == 404, "the refused start changed nothing")
        #expect(try storedStore(board).task(id: "full_1")?.status == .running)
        #expect(!FileManager.default.fileExists(atPath: board.stateDirectory + "/tasks.json.tmp"))
        #expect(eventually { board.log.contains("writing tasks.json failed: ") }, "\(board.log.suffix(2000))")

        // Space again: the retried lazy write lands, new writes succeed, a restart finds all of it.
        try FileManager.default.removeItem(atPath: filler)
        let again = try #require(
            endpoints.agent("POST", "/v1/tasks", body: #"{"task_title":"After","request_id":"full_3"}"#))
        #expect(again.status == 201, "\(again.text)")
        #expect(endpoints.agent("POST", "/v1/tasks/full_1/end", body: #"{"status":"completed"}"#)?.status == 200)
        #expect(board.stop(signal: SIGKILL) == -SIGKILL)
        try board.start()
        let stored = try storedStore(board)
        #expect(stored.task(id: "full_1")?.status == .completed)
        #expect(stored.task(id: "full_1")?.currentStep == "while full")
        #expect(stored.task(id: "full_3") != nil)
        #expect(stored.task(id: "full_2") == nil)
        #expect(try corruptFiles(board).isEmpty)
        FaultSuite.report(
            "disk-full",
            [
                "tmpfs": "512KiB",
                "refused": "\(refused.status) \(message.replacingOccurrences(of: board.stateDirectory, with: "STATE"))",
            ])
    }

    @Test func aReadOnlyStateDirectoryRefusesWritesAndTheBoardKeepsServing() throws {
        let board = try BoardProcess(coalesceMilliseconds: 50)
        let mount = try TmpfsMount(at: board.stateDirectory, kilobytes: 1024)
        defer { mount.unmount() }
        try board.start()
        defer { board.stop() }
        let endpoints = BoardEndpoints(board)
        #expect(
            endpoints.agent("POST", "/v1/tasks", body: #"{"task_title":"Kept","request_id":"ro_1"}"#)?.status == 201)

        try mount.remount(readOnly: true)
        let refused = try #require(
            endpoints.agent("POST", "/v1/tasks", body: #"{"task_title":"No","request_id":"ro_2"}"#))
        #expect(refused.status == 503, "\(refused.text)")
        let message = (refused.json?["error"] as? [String: Any])?["message"] as? String ?? ""
        #expect(message.contains("tasks.json") && message.contains("Read-only file system"), "\(message)")
        #expect(
            (endpoints.phone("/api/live-activity/current")?.json?["live_activity"] as? [String: Any])?["request_id"]
                as? String == "ro_1")

        // A restart on the read-only directory: the board starts and serves what it has, and says why it
        // cannot write (its start Wake needs a new sequence mark on disk).
        board.stop()
        try board.start()
        #expect(
            (endpoints.phone("/api/live-activity/current")?.json?["live_activity"] as? [String: Any])?["request_id"]
                as? String == "ro_1")
        #expect(endpoints.agent("GET", "/v1/tasks/ro_1")?.status == 200)
        #expect(endpoints.agent("POST", "/v1/tasks", body: #"{"task_title":"No","request_id":"ro_3"}"#)?.status == 503)
        #expect(board.log.contains("Read-only file system"))

        try mount.remount(readOnly: false)
        #expect(endpoints.agent("POST", "/v1/tasks", body: #"{"task_title":"Yes","request_id":"ro_4"}"#)?.status == 201)
        board.stop()
        let stored = try storedStore(board)
        #expect(stored.task(id: "ro_1") != nil && stored.task(id: "ro_4") != nil)
        #expect(stored.task(id: "ro_2") == nil && stored.task(id: "ro_3") == nil)
        #expect(try corruptFiles(board).isEmpty)
        FaultSuite.report(
            "read-only",
            ["refused": "\(refused.status) \(message.replacingOccurrences(of: board.stateDirectory, with: "STATE"))"])
    }

    @Test func aNewBoardOnAReadOnlyDirectorySaysWhyItCannotStart() throws {
        let board = try BoardProcess()
        let mount = try TmpfsMount(at: board.stateDirectory, kilobytes: 64)
        defer { mount.unmount() }
        try mount.remount(readOnly: true)
        #expect(throws: IntegrationError.self) { try board.start() }
        // The first file the board must write there is its lock (board.lock), then wake.json: either is named.
        #expect(
            (board.log.contains("board.lock") || board.log.contains("wake.json"))
                && board.log.contains("Read-only file system"), "\(board.log)")
    }

    /// tasks.json, decoded as strictly as the board does.
    private func storedStore(_ board: BoardProcess) throws -> TaskStore {
        let data = try Data(contentsOf: URL(fileURLWithPath: board.stateDirectory + "/tasks.json"))
        return try JSONDecoder().decode(TaskStore.self, from: data)
    }

    private func corruptFiles(_ board: BoardProcess) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: board.stateDirectory).filter {
            $0.contains(".corrupt-") || $0.hasSuffix(".tmp")
        }
    }
}

/// A tmpfs this test mounts on a directory of its own scratch space, and unmounts.
struct TmpfsMount {
    let path: String

    init(at path: String, kilobytes: Int) throws {
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        let result = try runCommand(
            "/bin/mount", ["-t", "tmpfs", "-o", "size=\(kilobytes)k,mode=0700", "aiden-fault", path])
        guard result.status == 0 else { throw IntegrationError("mount tmpfs on \(path): \(result.error)") }
        self.path = path
    }

    func remount(readOnly: Bool) throws {
        let result = try runCommand("/bin/mount", ["-o", "remount,\(readOnly ? "ro" : "rw")", path])
        guard result.status == 0 else { throw IntegrationError("remount \(path): \(result.error)") }
    }

    /// Fills the file system to the last block; returns the filler's path.
    func fill() throws -> String {
        let filler = path + "/filler"
        let fd = open(filler, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        guard fd >= 0 else { throw IntegrationError("open \(filler): errno \(errno)") }
        defer { close(fd) }
        let chunk = [UInt8](repeating: 0, count: 4096)
        while write(fd, chunk, chunk.count) > 0 {}
        guard errno == ENOSPC else { throw IntegrationError("filling \(path) stopped with errno \(errno)") }
        // Byte-sized writes take what is left of the last block.
        while write(fd, chunk, 1) > 0 {}
        return filler
    }

    func unmount() {
        if (try? runCommand("/bin/umount", [path]))?.status != 0 { _ = try? runCommand("/bin/umount", ["-l", path]) }
    }
}
