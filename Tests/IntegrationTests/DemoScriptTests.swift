import Foundation
import Testing

/// scripts/demo, the main job, run quickly with --json output on the binaries already built.
@Suite struct DemoScriptTests {
    @Test func theDemoRunsTheWholeFlowAndLeavesNothingBehind() throws {
        let board = try #require(Products.path("aiden-board"))
        let binDirectory = URL(fileURLWithPath: board).deletingLastPathComponent().path
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("scripts/demo").path
        let result = try runCommand(
            "/bin/bash", [script],
            environment: [
                "DEMO_JSON": "1", "DEMO_PACE": "0.1", "AIDEN_BIN_DIR": binDirectory, "TMPDIR": "/tmp",
            ], timeoutSeconds: 120)
        #expect(result.status == 0, "\(result.error)")

        let events = result.output.split(separator: "\n").compactMap {
            (try? JSONSerialization.jsonObject(with: Data($0.utf8))) as? [String: Any]
        }
        let cards = events.filter { $0["event"] as? String == "card" }
        #expect(cards.last?["state"] as? String == "completed")
        #expect(cards.last?["task_title"] as? String == "Open Settings")
        let alerts = events.filter { $0["event"] as? String == "alert" }.compactMap { $0["transition"] as? String }
        #expect(alerts == ["connected", "handoff", "completed"])

        // Both processes it started are gone, and so is its directory.
        let pids = result.error.split(separator: "\n").compactMap { line -> Int32? in
            guard line.contains(" pid ") else { return nil }
            return line.split(separator: " ").last.flatMap { Int32($0) }
        }
        #expect(pids.count == 2, "\(result.error)")
        for pid in pids {
            #expect(kill(pid, 0) != 0 && errno == ESRCH, "process \(pid) is still running")
        }
        let directory = result.error.split(separator: "\n").first { $0.contains("state in ") }
            .flatMap { $0.split(separator: " ").last }.map { String($0.dropLast()) }
        let temporary = try #require(directory)
        #expect(temporary.hasPrefix("/tmp/aiden-demo."))
        #expect(!FileManager.default.fileExists(atPath: temporary))
    }
}
