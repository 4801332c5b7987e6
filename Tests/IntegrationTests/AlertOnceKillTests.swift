import Foundation
import Testing

/// Once means once, across a kill -9: the built aiden-phone under strace, which delays every fsync of its alert
/// record's staging copy (`alerts.json.tmp`) by seconds, is killed with SIGKILL while a handoff's record waits for
/// its fsync. The alert must not have been shown yet (its record is not durable), and the restarted phone shows
/// it: once in all. Shown before its record was durable, as it once was, it would be given twice.
@Suite(.serialized, .enabled(if: Strace.path != nil, "strace is not installed (scripts/packages.txt)"))
struct AlertOnceKillTests {
    @Test func aKillWhileTheRecordWaitsForFsyncRepeatsNoAlert() throws {
        let stallSeconds = 3
        let wakePort = try freeLoopbackPort()
        let board = try BoardProcess(coalesceMilliseconds: 50, wakeTarget: "127.0.0.1:\(wakePort)")
        let phone = try PhoneProcess(boardURL: "http://127.0.0.1:\(board.port)", wakePort: wakePort)
        try board.start()
        defer { board.stop() }
        // A phone that has met this board: its record (the connected alert, the events read) is on disk.
        try phone.start()
        #expect(phone.waitFor { _ in phone.alertCount("connected") == 1 })
        #expect(phone.stop() == 0)

        let staging = phone.stateDirectory + "/alerts.json.tmp"
        let trace = Strace.wrapper(
            output: "/dev/null", trace: "fsync",
            extra: ["-P", staging, "-e", "inject=fsync:delay_enter=\(stallSeconds * 1_000_000)"])
        try phone.start(launcher: trace)
        defer { phone.stop() }
        let started = try board.aidenctl([
            "task", "start", "--title", "Enter the PIN", "--request-id", "once-1", "--phase", "waiting_user",
            "--action", "request_user_input", "-q",
        ])
        #expect(started.status == 0, "\(started.error)")
        #expect(phone.waitForCard { $0["state"] as? String == "handoff" && $0["request_id"] as? String == "once-1" })
        // Bounded look for the alert (it would come with the card if it did not wait for its record's fsync).
        phone.waitFor(timeoutSeconds: 1) { _ in phone.alertCount("handoff") > 0 }
        let beforeTheKill = phone.alertCount("handoff")
        Strace.end(phone.process, signal: SIGKILL)
        phone.stop()

        try phone.start()
        #expect(phone.waitFor { _ in phone.alertCount("handoff") == 1 }, "\(phone.rawLines.suffix(5))")
        // Anything still to come would come with a fetch: one more round (the task's end), then count.
        let ended = try board.aidenctl(["task", "end", "--id", "once-1", "--status", "completed", "-q"])
        #expect(ended.status == 0, "\(ended.error)")
        #expect(phone.waitFor { _ in phone.alertCount("completed") == 1 })
        #expect(beforeTheKill == 0, "shown before its record was durable")
        #expect(beforeTheKill + phone.alertCount("handoff") == 1, "the handoff is given once in all")
        #expect(phone.alertCount("connected") == 0, "the connected alert's record was durable: not again")
    }
}
