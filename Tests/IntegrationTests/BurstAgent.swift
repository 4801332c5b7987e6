import Foundation
import HTTPClient
import HTTPClientCore
import TestSupport
import WakeProtocol

/// One agent of the kill -9 test: as fast as the board answers, it starts tasks of its own, updates them
/// (progress, needs_app and back, handoffs) and ends them, and records every acknowledged answer with the
/// durability docs/task-store.md gives it. It owns its tasks, so each task's answers come in order.
struct BurstAgent: Sendable {
    let name: String
    let board: BoardEndpoints
    let seed: UInt64

    /// Runs until `stop` is set; an unanswered request (the board was killed) ends the run.
    func run(stop: Mutexed<Bool>, ledger: Mutexed<AgentLedger>, etags: Mutexed<ETagLedger>) {
        var random = SplitMix64(seed: seed)
        var mine: [String: [String: Any]] = [:]
        var started = 0
        while !stop.get() {
            let roll = Double.random(in: 0..<1, using: &random)
            guard mine.count >= 2 && roll >= 0.1, let id = mine.keys.sorted().randomElement(using: &random),
                let before = mine[id]
            else {
                started += 1
                let id = "\(name)-\(started)"
                let body = #"{"request_id":"\#(id)","task_title":"Burst \#(id)","phase":"planning"}"#
                guard
                    let snapshot = send(
                        "POST", "/v1/tasks", body, task: id, after: -1, durable: { _ in true }, ledger, etags)
                else { return }
                mine[id] = snapshot
                continue
            }
            let (path, body, ends): (String, String, Bool)
            switch Double.random(in: 0..<1, using: &random) {
            case ..<0.6:
                let progress = Double(Int.random(in: 0...100, using: &random)) / 100
                (path, body, ends) = (
                    "/v1/tasks/\(id)",
                    #"{"current_step":"step \#(started) \#(progress)","progress":\#(progress),"phase":"acting"}"#,
                    false
                )
            case ..<0.75:
                let status = before["status"] as? String == "needs_app" ? "running" : "needs_app"
                (path, body, ends) = ("/v1/tasks/\(id)", #"{"status":"\#(status)"}"#, false)
            case ..<0.88:
                (path, body, ends) = (
                    "/v1/tasks/\(id)", #"{"phase":"waiting_user","current_action":"request_user_input"}"#, false
                )
            default:
                let status = ["completed", "failed", "canceled"].randomElement(using: &random) ?? "completed"
                (path, body, ends) = ("/v1/tasks/\(id)/end", #"{"status":"\#(status)","last_error":""}"#, true)
            }
            let method = ends ? "POST" : "PATCH"
            guard
                let after = send(
                    method, path, body, task: id, after: before["revision"] as? Int ?? -1,
                    durable: { after in ends || Self.recordsATransition(from: before, to: after) }, ledger, etags)
            else { return }
            mine[id] = ends ? nil : after
        }
    }

    /// Sends one request; records a 2xx answer and returns its `live_activity`, nil when there was none.
    /// `revision` is the task's revision before the request (-1 for a start).
    private func send(
        _ method: String, _ path: String, _ body: String, task: String, after revision: Int,
        durable: ([String: Any]) -> Bool,
        _ ledger: Mutexed<AgentLedger>, _ etags: Mutexed<ETagLedger>
    ) -> [String: Any]? {
        guard let answer = board.agent(method, path, body: body) else { return nil }
        let arrived = monotonicSeconds()
        guard (200..<300).contains(answer.status), let snapshot = answer.json?["live_activity"] as? [String: Any]
        else {
            ledger.update { $0.refused.append("\(method) \(path) \(body) → \(answer.status) \(answer.text)") }
            return nil
        }
        let ack = AgentLedger.Ack(
            task: task, durability: durable(snapshot) ? .onAnswer : .withinOneSecond,
            revision: snapshot["revision"] as? Int ?? -1, status: snapshot["status"] as? String ?? "",
            snapshot: canonicalJSON(snapshot), at: arrived)
        ledger.update { $0.record(ack) }
        if let etag = answer.headers["etag"] {
            etags.update {
                $0.recordAnswer(task: task, etag: etag, snapshot: ack.snapshot, changed: ack.revision > revision)
            }
        }
        return snapshot
    }

    /// Whether an update recorded a transition (docs/task-store.md "Transition ring"), which makes it durable
    /// before it is answered: entering needs_app, or entering the handoff.
    static func recordsATransition(from before: [String: Any], to after: [String: Any]) -> Bool {
        guard (after["revision"] as? Int ?? 0) > (before["revision"] as? Int ?? 0) else { return false }
        func handoff(_ task: [String: Any]) -> Bool {
            task["phase"] as? String == "waiting_user" && task["current_action"] as? String == "request_user_input"
        }
        let needsApp = before["status"] as? String != "needs_app" && after["status"] as? String == "needs_app"
        return needsApp || (!handoff(before) && handoff(after))
    }
}
