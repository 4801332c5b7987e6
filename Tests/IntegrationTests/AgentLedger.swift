import Foundation

/// What the board acknowledged to agents (2xx answers on the agent socket), task by task, and what a board
/// restarted after kill -9 must therefore still hold (docs/task-store.md "Writes"):
///
/// - a start, an end and an update that recorded a transition are durable when answered;
/// - any other update is written within 1 s, so one answered more than `lazyBound` before the kill must be
///   there too (the bound is 1 s plus slack for a loaded machine);
/// - whatever revision of a task survived, if an agent was answered with that revision, the task is exactly
///   the snapshot it was answered with: no half-written or mixed state.
struct AgentLedger {
    enum Durability: Sendable { case onAnswer, withinOneSecond }

    /// One acknowledged answer.
    struct Ack: Sendable {
        let task: String
        let durability: Durability
        let revision: Int
        let status: String
        /// The answered `live_activity`, as `canonicalJSON`.
        let snapshot: String
        /// When the answer arrived (`monotonicSeconds`).
        let at: Double
    }

    /// What a restarted board holds that it must not.
    struct Findings {
        /// Tasks whose start was acknowledged but that are gone.
        var lost: [String] = []
        /// Tasks older than an acknowledged durable change (or a lazy one older than the bound).
        var behind: [String] = []
        /// Tasks whose revision was acknowledged with different content.
        var mismatched: [String] = []
        /// Lazy answers old enough to be checked, and younger ones the crash was allowed to lose (and did).
        var lazyChecked = 0
        var lazyLostInsideTheWindow = 0
        var durableChecked = 0

        var problems: [String] { lost.map { "lost \($0)" } + behind + mismatched }
    }

    private(set) var acks: [String: [Ack]] = [:]
    /// Answers that were not 2xx: none is expected (each agent only sends what the board accepts).
    var refused: [String] = []

    var count: Int { acks.values.reduce(0) { $0 + $1.count } }

    mutating func record(_ ack: Ack) { acks[ack.task, default: []].append(ack) }

    /// Checks `restored` (request_id → live_activity, from `GET /v1/tasks` after the restart).
    func check(restored: [String: [String: Any]], killedAt: Double, lazyBound: Double) -> Findings {
        var findings = Findings()
        for (task, answers) in acks {
            let durable = answers.filter { $0.durability == .onAnswer }
            let lazy = answers.filter { $0.durability == .withinOneSecond }
            let due = lazy.filter { $0.at < killedAt - lazyBound }
            findings.durableChecked += durable.count
            findings.lazyChecked += due.count
            guard let snapshot = restored[task] else {
                if !durable.isEmpty || !due.isEmpty { findings.lost.append(task) }
                continue
            }
            let revision = snapshot["revision"] as? Int ?? -1
            let required = (durable + due).max { $0.revision < $1.revision }
            if let required, revision < required.revision {
                findings.behind.append(
                    "\(task) restored at revision \(revision), acknowledged \(required.revision) "
                        + "(\(required.durability == .onAnswer ? "durable when answered" : "lazy, \(killedAt - required.at) s before the kill"))"
                )
            }
            if let status = durable.last(where: { ["completed", "failed", "canceled"].contains($0.status) })?.status,
                snapshot["status"] as? String != status
            {
                findings.behind.append("\(task) was ended \(status), restored as \(snapshot["status"] ?? "nil")")
            }
            if let newestLazy = lazy.last, revision < newestLazy.revision,
                !due.contains(where: { $0.revision == newestLazy.revision })
            {
                findings.lazyLostInsideTheWindow += 1
            }
            if let same = answers.first(where: { $0.revision == revision }), same.snapshot != canonicalJSON(snapshot) {
                findings.mismatched.append(
                    "\(task) revision \(revision) restored as \(canonicalJSON(snapshot)), answered as \(same.snapshot)")
            }
        }
        return findings
    }
}

/// Every (resource, ETag) pair seen with the bodies it came with: an ETag must never stand for two different
/// bodies, or a phone holding it gets a stale `304 Not Modified`.
struct ETagLedger {
    private var bodies: [String: Set<String>] = [:]
    /// The first few repeats, described.
    private(set) var repeated: [String] = []
    private(set) var seen = 0

    mutating func record(resource: String, etag: String, body: String) {
        seen += 1
        let key = resource + " " + etag
        let earlier = bodies[key, default: []]
        guard !earlier.contains(body) else { return }
        bodies[key, default: []].insert(body)
        if let first = earlier.first, repeated.count < 5 {
            repeated.append("\(key): once \(first.prefix(200)), then \(body.prefix(200))")
        }
    }

    /// An agent's answer: the task's snapshot under the store's ETag. When the request made a new revision
    /// (`changed`), the task's revision is the store's, so that ETag also names exactly this change: recorded
    /// as the store's change, the one resource every revision has, so a revision lost in a crash and made
    /// again with other content is caught even if no reader happened to see it.
    mutating func recordAnswer(task: String, etag: String, snapshot: String, changed: Bool) {
        record(resource: "task \(task)", etag: etag, body: snapshot)
        if changed { record(resource: "store change", etag: etag, body: "\(task) \(snapshot)") }
    }

    /// ETags that stood for more than one body.
    var repeatedCount: Int { bodies.values.filter { $0.count > 1 }.count }
    var distinct: Int { bodies.count }
}
