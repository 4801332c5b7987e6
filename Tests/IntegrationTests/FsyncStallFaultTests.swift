import Foundation
import TestSupport
import Testing

/// The fault suite's slow-disk test (docs/fault-suite.md): the built aiden-board under strace, which delays
/// every fsync of the task file's staging copy by seconds (`-e inject=fsync:delay_enter=…` on
/// `-P …/tasks.json.tmp`), as a dying SD card would. While an agent's start waits for its fsync, the phone's
/// reads of `/api/live-activity/current` keep being answered, from the last publication: the start is not
/// visible until it is durable. The read latencies with and without the stall are reported; the test asserts
/// only the order of events (reads answered after the write was sent and before its fsync could return).
@Suite(.serialized, .enabled(if: Strace.path != nil, "strace is not installed (scripts/packages.txt)"))
struct FsyncStallFaultTests {
    /// A read of the phone's: when it started, how long it took, and which task it showed.
    typealias Read = (started: Double, seconds: Double, requestID: String?)

    @Test func phoneReadsAreAnsweredWhileAnAgentsWriteWaitsForFsync() throws {
        let stallSeconds = FaultSuite.size(short: 3, long: 10)
        let board = try stalledBoard(stallSeconds)
        defer {
            Strace.end(board.process)
            board.stop()
        }
        let endpoints = BoardEndpoints(board)
        // A task the phone sees (its write stalls too).
        let seeded = endpoints.agent(
            "POST", "/v1/tasks", body: #"{"task_title":"Before","request_id":"stall_1"}"#,
            totalMilliseconds: (stallSeconds + 10) * 1000)
        #expect(seeded?.status == 201)
        let baseline = (0..<200).compactMap { _ in timedRead(endpoints)?.seconds }

        let write = readWhileStalled(endpoints, stallSeconds: stallSeconds) {
            endpoints.agent(
                "POST", "/v1/tasks", body: #"{"task_title":"Stalled","request_id":"stall_2"}"#,
                totalMilliseconds: (stallSeconds + 20) * 1000)?.status
        }
        let during = write.whileStalled.map(\.seconds)
        let sawTheStalledTask = write.whileStalled.contains { $0.requestID == "stall_2" }
        FaultSuite.report(
            "fsync-stall",
            [
                "fsync-delay": "\(stallSeconds)s", "write-answered-after": FaultSuite.milliseconds(write.seconds),
                "reads-during-stall": "\(during.count)",
                "baseline-p50": FaultSuite.milliseconds(FaultSuite.percentile(baseline, 0.5)),
                "baseline-p99": FaultSuite.milliseconds(FaultSuite.percentile(baseline, 0.99)),
                "stalled-p50": FaultSuite.milliseconds(FaultSuite.percentile(during, 0.5)),
                "stalled-p99": FaultSuite.milliseconds(FaultSuite.percentile(during, 0.99)),
                "stalled-max": FaultSuite.milliseconds(during.max() ?? 0),
            ])
        #expect(write.status == 201, "the stalled write succeeds in the end")
        #expect(during.count >= 10, "the phone was answered while the agent's write waited for fsync")
        #expect(!sawTheStalledTask, "a start is published only once it is durable")
        #expect(
            (endpoints.phone("/api/live-activity/current")?.json?["live_activity"] as? [String: Any])?["request_id"]
                as? String == "stall_2")
    }

    /// The person's answer is a store change the writer makes durable first, and it arrives on the phone's own
    /// listener: while its fsync stalls, the answer is pending and the phone's reads on other connections are still
    /// answered (the listener's one thread does not wait for the writer; the answer's connection does).
    @Test func phoneReadsAreAnsweredWhileThePersonsAnswerWaitsForFsync() throws {
        let stallSeconds = FaultSuite.size(short: 3, long: 10)
        let board = try stalledBoard(stallSeconds)
        defer {
            Strace.end(board.process)
            board.stop()
        }
        let endpoints = BoardEndpoints(board)
        let seeded = endpoints.agent(
            "POST", "/v1/tasks", body: #"{"task_title":"Long job","request_id":"stall_stop","can_stop":true}"#,
            totalMilliseconds: (stallSeconds + 10) * 1000)
        #expect(seeded?.status == 201)

        let answer = readWhileStalled(endpoints, stallSeconds: stallSeconds) {
            endpoints.phone(
                "/api/live-activity/tasks/stall_stop/answer", method: "POST",
                headers: [("Content-Type", "application/json")],
                body: #"{"answer":"stop","answer_id":"stall-a1","phone_id":"p1"}"#,
                totalMilliseconds: (stallSeconds + 20) * 1000)?.status
        }
        let during = answer.whileStalled.map(\.seconds)
        FaultSuite.report(
            "fsync-stall-answer",
            [
                "fsync-delay": "\(stallSeconds)s", "answer-answered-after": FaultSuite.milliseconds(answer.seconds),
                "reads-during-stall": "\(during.count)",
                "stalled-p50": FaultSuite.milliseconds(FaultSuite.percentile(during, 0.5)),
                "stalled-max": FaultSuite.milliseconds(during.max() ?? 0),
            ])
        #expect(answer.status == 200, "the stalled answer is recorded in the end")
        #expect(during.count >= 10, "the phone's reads were answered while its answer waited for fsync")
        #expect(answer.seconds >= Double(stallSeconds) * 0.9, "the answer waited for its fsync")
    }

    /// The built board under strace, every fsync of its task file's staging copy delayed by `stallSeconds`.
    private func stalledBoard(_ stallSeconds: Int) throws -> BoardProcess {
        let board = try BoardProcess(coalesceMilliseconds: 50)
        let staging = board.stateDirectory + "/tasks.json.tmp"
        let trace = Strace.wrapper(
            output: "/dev/null", trace: "fsync",
            extra: ["-P", staging, "-e", "inject=fsync:delay_enter=\(stallSeconds * 1_000_000)"])
        try board.start(wrapper: trace)
        return board
    }

    /// Sends `request` (a write that stalls in fsync) from another thread and reads the phone's `current` until it
    /// is answered. The injected delay starts at the fsync's entry, which comes after the request was sent: a read
    /// that began after the sending and ended within `stallSeconds` of it ended before the fsync returned, so while
    /// the request was stalled (`whileStalled`).
    private func readWhileStalled(
        _ endpoints: BoardEndpoints, stallSeconds: Int, _ request: @escaping @Sendable () -> Int?
    ) -> (status: Int?, seconds: Double, whileStalled: [Read]) {
        let write = Mutexed<(sent: Double, answered: Double?, status: Int?)>((0, nil, nil))
        let writer = DispatchGroup()
        DispatchQueue.global().async(group: writer) {
            write.set((monotonicSeconds(), nil, nil))
            let status = request()
            write.update {
                $0.answered = monotonicSeconds(); $0.status = status
            }
        }
        var reads: [Read] = []
        while write.get().answered == nil {
            if let read = timedRead(endpoints) { reads.append(read) }
        }
        writer.wait()
        let state = write.get()
        let stalledUntil = state.sent + Double(stallSeconds)
        let whileStalled = reads.filter { $0.started > state.sent && $0.started + $0.seconds < stalledUntil }
        return (state.status, (state.answered ?? 0) - state.sent, whileStalled)
    }

    /// One phone read: when it started, how long it took, and which task it showed.
    private func timedRead(_ endpoints: BoardEndpoints) -> Read? {
        let started = monotonicSeconds()
        guard let answer = endpoints.phone("/api/live-activity/current", totalMilliseconds: 5000), answer.status == 200
        else { return nil }
        let id = (answer.json?["live_activity"] as? [String: Any])?["request_id"] as? String
        return (started, monotonicSeconds() - started, id)
    }
}
