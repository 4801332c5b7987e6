import Logging

/// One line of `aiden-board doctor` or `aiden-phone doctor`: how bad, what was seen, and how to fix it.
/// Both doctors judge pure facts into these and print them the same way; a run exits non-zero when any
/// finding is a problem.
package struct DoctorFinding: Equatable, Sendable, CustomStringConvertible {
    package enum Severity: String, Sendable {
        /// Checked and fine.
        case ok
        /// Worth knowing, not wrong (something not running yet, an optional feature not available).
        case info
        /// Wrong: the program will not work as it should until it is fixed.
        case problem
    }

    package var severity: Severity
    package var message: String
    /// What to do about it. Every problem has one; an info may say how to get what is missing.
    package var fix: String?

    package init(severity: Severity, message: String, fix: String? = nil) {
        self.severity = severity
        self.message = message
        self.fix = fix
    }

    package static func ok(_ message: String) -> DoctorFinding {
        DoctorFinding(severity: .ok, message: message)
    }

    package static func info(_ message: String, fix: String? = nil) -> DoctorFinding {
        DoctorFinding(severity: .info, message: message, fix: fix)
    }

    package static func problem(_ message: String, fix: String) -> DoctorFinding {
        DoctorFinding(severity: .problem, message: message, fix: fix)
    }

    /// `problem: … (fix: …)`, the line both doctors print. A message quotes what the host said (a bluetoothd
    /// error, an interface's name, a device's descriptor), so its control characters are escaped as in a log
    /// line (`ControlCharacter.escaping`): the finding stays one line and cannot drive the terminal.
    package var description: String {
        ControlCharacter.escaping("\(severity.rawValue): \(message)" + (fix.map { " (fix: \($0))" } ?? ""))
    }

    /// The doctors' exit status: 0 when nothing is wrong, 1 when any finding is a problem.
    package static func exitStatus(_ findings: [DoctorFinding]) -> Int32 {
        findings.contains { $0.severity == .problem } ? 1 : 0
    }
}
