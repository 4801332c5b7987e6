import Foundation
import LiveActivity
import TestSupport
import Testing
import WakeProtocol

/// The fault suite's crash test (docs/fault-suite.md): `kill -9` of the built aiden-board at a random moment
/// of a burst, cycle after cycle, while three agents start, update and end tasks over its Unix socket as fast
/// as it answers and a phone reads `/api/live-activity/current`. After each crash the state files must decode
/// (the board's own strict decoding, invariants included) and the restarted board must hold everything it
/// acknowledged (`AgentLedger`); over the whole run the Wake sequence never goes back and no ETag stands for
/// two different bodies.
@Suite(.serialized) struct KillNineFaultTests {
    /// docs/task-store.md gives lazy writes 1 s; the rest is slack for a loaded 2-core machine.
    static let lazyBound = 3.0

    @Test func killNineDuringUpdateBurstsLosesNothingAcknowledged() throws {
        let cycles = FaultSuite.size(short: 10, long: 50)
        let seed = UInt64.random(in: 1...UInt64.max)
        var random = SplitMix64(seed: seed)
        let board = try BoardProcess(coalesceMilliseconds: 50)
        try board.start()
        defer { board.stop() }
        let endpoints = BoardEndpoints(board)
        let etags = Mutexed(ETagLedger())
        var totals = AgentLedger.Findings()
        var corrupt: [String] = []
        var refused: [String] = []
        var acknowledged = 0
        var leftoverTemporaryFiles = 0
        var restartSeconds: [Double] = []
        var burstSeconds: [Double] = []
        var carried: [AgentLedger.Ack] = []

        for cycle in 0..<cycles {
            let ledger = Mutexed(AgentLedger())
            ledger.update { ledger in carried.forEach { ledger.record($0) } }
            let stop = Mutexed(false)
            let workers = DispatchGroup()
            for index in 0..<3 {
                let agent = BurstAgent(name: "k\(cycle)-a\(index)", board: endpoints, seed: random.next())
                DispatchQueue.global().async(group: workers) { agent.run(stop: stop, ledger: ledger, etags: etags) }
            }
            // The phone reads its card; an observer reads the whole store, whose ETag every answer shares.
            DispatchQueue.global().async(group: workers) {
                while !stop.get() { Self.observe(endpoints, "/api/live-activity/current", etags) }
            }
            DispatchQueue.global().async(group: workers) {
                while !stop.get() {
                    Self.observe(endpoints, "/v1/tasks", etags)
                    usleep(20_000)
                }
            }
            let burst = Double.random(in: 0.05...4.0, using: &random)
            burstSeconds.append(burst)
            usleep(UInt32(burst * 1_000_000))
            let killedAt = monotonicSeconds()
            #expect(board.stop(signal: SIGKILL) == -SIGKILL)
            stop.set(true)
            workers.wait()

            let files = try FileManager.default.contentsOfDirectory(atPath: board.stateDirectory)
            if files.contains(where: { $0.hasSuffix(".tmp") }) { leftoverTemporaryFiles += 1 }
            corrupt += stateFileProblems(board, cycle: cycle, sentSoFar: board.receivedWakes)

            let restart = monotonicSeconds()
            try board.start()
            restartSeconds.append(monotonicSeconds() - restart)
            let after = try FileManager.default.contentsOfDirectory(atPath: board.stateDirectory)
            corrupt += after.filter { $0.contains(".corrupt-") }.map { "cycle \(cycle): the board set aside \($0)" }

            let listed = try #require(Self.observe(endpoints, "/v1/tasks", etags))
            let list = try #require(listed["tasks"] as? [[String: Any]])
            let restored = Dictionary(
                list.compactMap { task in (task["request_id"] as? String).map { ($0, task) } },
                uniquingKeysWith: { a, _ in a })
            let findings = ledger.get().check(restored: restored, killedAt: killedAt, lazyBound: Self.lazyBound)
            for problem in findings.problems { Issue.record("cycle \(cycle): \(problem)") }
            totals.lost += findings.lost
            totals.behind += findings.behind
            totals.mismatched += findings.mismatched
            totals.lazyChecked += findings.lazyChecked
            totals.durableChecked += findings.durableChecked
            totals.lazyLostInsideTheWindow += findings.lazyLostInsideTheWindow
            acknowledged += ledger.get().count - carried.count
            refused += ledger.get().refused

            // What an agent does after a crash: end what it can no longer finish. Those ends are acknowledged too
            // and must survive the next crash.
            carried = []
            for task in restored.values where ["running", "needs_app"].contains(task["status"] as? String ?? "") {
                guard let id = task["request_id"] as? String,
                    let answer = endpoints.agent("POST", "/v1/tasks/\(id)/end", body: #"{"status":"canceled"}"#),
                    answer.status == 200, let snapshot = answer.json?["live_activity"] as? [String: Any]
                else { continue }
                carried.append(
                    AgentLedger.Ack(
                        task: id, durability: .onAnswer, revision: snapshot["revision"] as? Int ?? -1,
                        status: "canceled", snapshot: canonicalJSON(snapshot), at: monotonicSeconds()))
                if let etag = answer.headers["etag"] {
                    etags.update {
                        $0.recordAnswer(task: id, etag: etag, snapshot: canonicalJSON(snapshot), changed: true)
                    }
                }
            }
            Self.observe(endpoints, "/v1/tasks", etags)
            Self.observe(endpoints, "/api/live-activity/current", etags)
        }

        #expect(board.waitForWakes { $0.count > cycles })
        let wakes = board.receivedWakes
        let regressions = zip(wakes, wakes.dropFirst()).filter { $0.sequence >= $1.sequence }.count
        let epochs = Set(wakes.map(\.epoch))
        let seen = etags.get()
        FaultSuite.report(
            "kill-9",
            [
                "cycles": "\(cycles)", "seed": "\(seed)", "acknowledged": "\(acknowledged)",
                "durable-checked": "\(totals.durableChecked)", "lazy-checked": "\(totals.lazyChecked)",
                "lost": "\(totals.lost.count)", "behind": "\(totals.behind.count)",
                "mismatched": "\(totals.mismatched.count)",
                "lazy-lost-inside-1s": "\(totals.lazyLostInsideTheWindow)", "wakes": "\(wakes.count)",
                "sequence-regressions": "\(regressions)", "epochs": "\(epochs.count)",
                "corrupt-files": "\(corrupt.count)", "leftover-tmp": "\(leftoverTemporaryFiles)",
                "etags-seen": "\(seen.seen)", "etags-distinct": "\(seen.distinct)",
                "repeated-etags": "\(seen.repeatedCount)",
                "burst-mean": FaultSuite.milliseconds(burstSeconds.reduce(0, +) / Double(max(burstSeconds.count, 1))),
                "restart-p50": FaultSuite.milliseconds(FaultSuite.percentile(restartSeconds, 0.5)),
                "restart-max": FaultSuite.milliseconds(restartSeconds.max() ?? 0),
            ])
        #expect(acknowledged > cycles, "the agents got answers in the bursts")
        #expect(refused.isEmpty, "every request of the agents is valid: \(refused.prefix(5))")
        #expect(totals.problems.isEmpty)
        #expect(regressions == 0, "Wake sequences: \(wakes.map(\.sequence))")
        #expect(epochs.count == 1, "same state directory, same epoch")
        #expect(corrupt.isEmpty, "\(corrupt)")
        #expect(seen.repeatedCount == 0, "an ETag stood for two bodies: \(seen.repeated)")
    }

    /// Reads `path` (a phone path on the HTTP listener, else on the agent socket) and records its ETag with the
    /// body; returns the body.
    @discardableResult
    private static func observe(
        _ endpoints: BoardEndpoints, _ path: String, _ etags: Mutexed<ETagLedger>
    ) -> [String: Any]? {
        let answer =
            path.hasPrefix("/v1/")
            ? endpoints.agent("GET", path, totalMilliseconds: 2000)
            : endpoints.phone(path, totalMilliseconds: 2000)
        guard let answer, answer.status == 200, let etag = answer.headers["etag"], let json = answer.json else {
            return nil
        }
        etags.update { $0.record(resource: path, etag: etag, body: canonicalJSON(json)) }
        return json
    }

    /// What is wrong with the state files a crash left, by the board's own strict decoding; also that the Wake
    /// high-water mark covers every sequence sent (`SequenceReservation`).
    private func stateFileProblems(_ board: BoardProcess, cycle: Int, sentSoFar: [WakeEnvelope]) -> [String] {
        var problems: [String] = []
        let tasks = board.stateDirectory + "/tasks.json"
        if let data = FileManager.default.contents(atPath: tasks) {
            do {
                _ = try JSONDecoder().decode(TaskStore.self, from: data)
            } catch {
                problems.append("cycle \(cycle): tasks.json does not decode: \(error)")
            }
        }
        guard let data = FileManager.default.contents(atPath: board.stateDirectory + "/wake.json") else {
            return problems + ["cycle \(cycle): wake.json is missing"]
        }
        do {
            let wake = try JSONDecoder().decode(WakeState.self, from: data)
            let highest = sentSoFar.map(\.sequence).max() ?? 0
            if wake.sequenceHighWater < highest {
                problems.append(
                    "cycle \(cycle): wake.json reserves up to \(wake.sequenceHighWater), \(highest) was sent")
            }
        } catch {
            problems.append("cycle \(cycle): wake.json does not decode: \(error)")
        }
        return problems
    }
}
