import Testing

/// The kill -9 test's judges on made-up answers: each finding it can report, and what it must let pass.
@Suite struct AgentLedgerTests {
    private func ack(
        _ task: String, _ revision: Int, _ durability: AgentLedger.Durability, status: String = "running",
        at: Double = 0
    ) -> AgentLedger.Ack {
        AgentLedger.Ack(
            task: task, durability: durability, revision: revision, status: status,
            snapshot: canonicalJSON(snapshot(task, revision, status: status)), at: at)
    }

    private func snapshot(_ task: String, _ revision: Int, status: String = "running") -> [String: Any] {
        ["request_id": task, "revision": revision, "status": status]
    }

    @Test func findsLostBehindAndMismatchedTasks() {
        var ledger = AgentLedger()
        ledger.record(ack("lost", 1, .onAnswer))
        ledger.record(ack("behind", 2, .onAnswer))
        ledger.record(ack("behind", 4, .withinOneSecond, at: 1))
        ledger.record(ack("ended", 5, .onAnswer))
        ledger.record(ack("ended", 6, .onAnswer, status: "failed"))
        ledger.record(ack("mixed", 7, .onAnswer))
        let findings = ledger.check(
            restored: [
                "behind": snapshot("behind", 2), "ended": snapshot("ended", 6, status: "running"),
                "mixed": ["request_id": "mixed", "revision": 7, "status": "running", "current_step": "?"],
            ], killedAt: 10, lazyBound: 3)
        #expect(findings.lost == ["lost"])
        #expect(findings.behind.count == 2, "\(findings.behind)")
        #expect(findings.behind.contains { $0.hasPrefix("behind restored at revision 2, acknowledged 4") })
        #expect(findings.behind.contains { $0.hasPrefix("ended was ended failed") })
        #expect(findings.mismatched.count == 2, "ended's and mixed's content differ from what was answered")
        #expect(findings.durableChecked == 5 && findings.lazyChecked == 1)
    }

    @Test func letsACrashLoseTheUpdatesOfItsLastSecond() {
        var ledger = AgentLedger()
        ledger.record(ack("t", 1, .onAnswer))
        ledger.record(ack("t", 2, .withinOneSecond, at: 8))
        ledger.record(ack("t", 3, .withinOneSecond, at: 9.5))
        let findings = ledger.check(restored: ["t": snapshot("t", 1)], killedAt: 10, lazyBound: 3)
        #expect(findings.problems.isEmpty, "\(findings.problems)")
        #expect(findings.lazyLostInsideTheWindow == 1 && findings.lazyChecked == 0)
        let kept = ledger.check(restored: ["t": snapshot("t", 3)], killedAt: 10, lazyBound: 3)
        #expect(kept.problems.isEmpty && kept.lazyLostInsideTheWindow == 0)
    }

    @Test func anETagMayStandForOneBodyOnly() {
        var etags = ETagLedger()
        etags.record(resource: "current", etag: "\"1-5\"", body: "a")
        etags.record(resource: "current", etag: "\"1-5\"", body: "a")
        etags.record(resource: "list", etag: "\"1-5\"", body: "b")
        #expect(etags.repeatedCount == 0, "the same body again, or another resource, is no repeat")
        etags.recordAnswer(task: "x", etag: "\"1-6\"", snapshot: "s1", changed: true)
        etags.recordAnswer(task: "y", etag: "\"1-6\"", snapshot: "s2", changed: true)
        #expect(etags.repeatedCount == 1, "two changes under one ETag")
        etags.record(resource: "current", etag: "\"1-5\"", body: "c")
        #expect(etags.repeatedCount == 2 && etags.repeated.count == 2)
    }
}
