import WireFormat

/// A doctor's finding with the name of the check that made it (`configuration`, `listen`, `bluetooth`, …), for
/// `doctor --json`: scripts and monitoring select findings by name, people read the text lines.
package struct DoctorCheck: Equatable, Sendable {
    package var name: String
    package var finding: DoctorFinding

    package init(_ name: String, _ finding: DoctorFinding) {
        self.name = name
        self.finding = finding
    }

    /// Each of `findings` named `name`.
    package static func named(_ name: String, _ findings: [DoctorFinding]) -> [DoctorCheck] {
        findings.map { DoctorCheck(name, $0) }
    }

    /// `ok`, `warning` (worth knowing, not wrong: the text's `info`) or `problem`.
    package static func status(_ severity: DoctorFinding.Severity) -> String {
        switch severity {
        case .ok: "ok"
        case .info: "warning"
        case .problem: "problem"
        }
    }

    /// `doctor --json`: one object, every check in order and the overall result (the worst status) with the exit
    /// status the run ends with, as the text output's.
    ///
    /// `{"result":"problem","exit_status":1,"checks":[{"name":"listen","status":"problem","message":"…","fix":"…"}]}`
    package static func json(_ checks: [DoctorCheck]) -> String {
        let findings = checks.map(\.finding)
        let result =
            findings.contains { $0.severity == .problem }
            ? "problem" : findings.contains { $0.severity == .info } ? "warning" : "ok"
        let objects = checks.map { check in
            "{\"name\":\(JSONString.quote(check.name)),\"status\":\"\(status(check.finding.severity))\","
                + "\"message\":\(JSONString.quote(check.finding.message)),"
                + "\"fix\":\(check.finding.fix.map(JSONString.quote) ?? "null")}"
        }
        return "{\"result\":\"\(result)\",\"exit_status\":\(DoctorFinding.exitStatus(findings)),"
            + "\"checks\":[\(objects.joined(separator: ","))]}"
    }
}
