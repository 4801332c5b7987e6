import WireFormat

/// Human output of each command, as text ending in a newline. Every string from the daemon goes through
/// `TerminalText.escaped`, so a title with a newline cannot fake a line (the request id must stay last).
package enum OutputFormatter {
    /// `task start`: a one-line summary, then the request id alone, last, for `id=$(aidenctl … | tail -n1)`.
    package static func started(_ snapshot: SnapshotView) -> String {
        var facts: [String] = []
        if let status = snapshot.status { facts.append("status \(TerminalText.escaped(status.rawValue))") }
        if let phase = snapshot.phase { facts.append("phase \(TerminalText.escaped(phase.rawValue))") }
        if let progress = snapshot.progress { facts.append("progress \(percent(progress))") }
        if let revision = snapshot.revision { facts.append("revision \(revision)") }
        var summary = "started task"
        if let title = snapshot.taskTitle { summary += " \"\(TerminalText.escaped(title))\"" }
        if !facts.isEmpty { summary += " (" + facts.joined(separator: ", ") + ")" }
        return summary + "\n" + TerminalText.escaped(snapshot.requestID ?? "") + "\n"
    }

    /// `task show`, `task update`, `task end`: `key: value` lines in the snapshot's member order, with the
    /// member names of docs/protocol.md §4.2 (`SnapshotKey`). Absent and empty fields are left out.
    package static func snapshot(_ snapshot: SnapshotView) -> String {
        var out = ""
        for key in SnapshotKey.allCases {
            guard let value = text(key, of: snapshot), !value.isEmpty else { continue }
            out += "\(key.stringValue): \(TerminalText.escaped(value))\n"
        }
        return out
    }

    /// One field as `task show` prints it.
    private static func text(_ key: SnapshotKey, of snapshot: SnapshotView) -> String? {
        switch key {
        case .requestID: snapshot.requestID
        case .phoneID: snapshot.phoneID
        case .status: snapshot.status?.rawValue
        case .phase: snapshot.phase?.rawValue
        case .taskTitle: snapshot.taskTitle
        case .currentStep: snapshot.currentStep
        case .currentAction: snapshot.currentAction
        case .currentTarget: snapshot.currentTarget
        case .currentApp: snapshot.currentApp
        case .lastToolName: snapshot.lastToolName
        case .lastError: snapshot.lastError
        case .toolStatus: snapshot.toolStatus
        case .toolStartedAt: snapshot.toolStartedAt
        case .locale: snapshot.locale
        case .progress: snapshot.progress.map { "\(number($0)) (\(percent($0)))" }
        case .showsProgress: snapshot.showsProgress.map(String.init)
        case .canStop: snapshot.canStop.map(String.init)
        case .requiresApp: snapshot.requiresApp.map(String.init)
        case .staleAfterSeconds: snapshot.staleAfterSeconds.map(String.init)
        case .abandonAfterSeconds: snapshot.abandonAfterSeconds.map(String.init)
        case .staleSince: snapshot.staleSince
        case .startedAt: snapshot.startedAt
        case .updatedAt: snapshot.updatedAt
        case .endedAt: snapshot.endedAt
        case .dismissAfterSeconds: snapshot.dismissAfterSeconds.map(String.init)
        case .dismissedAt: snapshot.dismissedAt
        case .revision: snapshot.revision.map(String.init)
        case .answer: snapshot.answer.flatMap(answer)
        }
    }

    /// `stop from phone phone-1 at 2026-06-12T07:00:02Z (ans-5f0c)`: what, who, when, then the press's id.
    private static func answer(_ answer: AnswerView) -> String? {
        guard let name = answer.answer?.rawValue else { return nil }
        var text = name
        if let phone = answer.phoneID, !phone.isEmpty { text += " from phone \(phone)" }
        if let at = answer.answeredAt { text += " at \(at)" }
        if let id = answer.answerID { text += " (\(id))" }
        return text
    }

    /// `events`: `at  transition  request_id` (the transition padded to the longest name), `-` for a member
    /// that is missing or not a string; an `answered` event ends with the answer (`  done`).
    package static func event(_ event: JSONValue) -> String {
        func text(_ key: EventKey) -> String {
            guard case let .object(members) = event, case let .string(value)? = members[key.stringValue],
                !value.isEmpty
            else { return "-" }
            return TerminalText.escaped(value)
        }
        let transition = text(.transition)
        let width = Transition.allCases.map(\.rawValue.count).max() ?? 0
        let padding = String(repeating: " ", count: max(0, width - transition.count))
        let answer = text(.answer)
        let suffix = answer == "-" ? "" : "  \(answer)"
        return "\(text(.at))  \(transition)\(padding)  \(text(.requestID))\(suffix)\n"
    }

    /// `task list`: an aligned table, one task per line, in the daemon's order; the title is last so that
    /// long titles do not push the other columns.
    package static func taskList(_ tasks: [SnapshotView]) -> String {
        guard !tasks.isEmpty else { return "no tasks\n" }
        var rows = [["ID", "STATUS", "PHASE", "PROGRESS", "TITLE"]]
        for task in tasks {
            let cells =
                [task.requestID, task.status?.rawValue, task.phase?.rawValue]
                + [task.progress.map(percent), task.taskTitle]
            rows.append(cells.map { TerminalText.escaped($0 ?? "-") })
        }
        var widths = [Int](repeating: 0, count: 4)
        for row in rows {
            for column in 0..<4 { widths[column] = max(widths[column], row[column].count) }
        }
        var out = ""
        for row in rows {
            var line = ""
            for column in 0..<4 {
                line += row[column] + String(repeating: " ", count: widths[column] - row[column].count + 2)
            }
            out += line + row[4] + "\n"
        }
        return out
    }

    /// `status` of an answer `StatusSummary` does not know: every key the daemon sent as `key: value`, nested
    /// objects flattened to `outer.inner`, keys sorted; the envelope's `"status":"ok"` is left out.
    package static func statusFields(_ value: JSONValue) -> String {
        var lines: [String] = []
        if case var .object(members) = value {
            if members["status"] == .string("ok") { members["status"] = nil }
            flatten(.object(members), prefix: "", into: &lines)
        } else {
            flatten(value, prefix: "status", into: &lines)
        }
        return lines.map { $0 + "\n" }.joined()
    }

    private static func flatten(_ value: JSONValue, prefix: String, into lines: inout [String]) {
        switch value {
        case let .object(members):
            guard !members.isEmpty else {
                if !prefix.isEmpty { lines.append("\(prefix): {}") }
                return
            }
            for key in members.keys.sorted() {
                guard let member = members[key] else { continue }
                let name = TerminalText.escaped(key)
                flatten(member, prefix: prefix.isEmpty ? name : "\(prefix).\(name)", into: &lines)
            }
        case let .array(items):
            let scalars = items.compactMap(scalarText)
            if scalars.count == items.count {
                lines.append("\(prefix): " + (items.isEmpty ? "[]" : scalars.joined(separator: ", ")))
            } else {
                for (index, item) in items.enumerated() { flatten(item, prefix: "\(prefix)[\(index)]", into: &lines) }
            }
        default:
            lines.append("\(prefix): \(scalarText(value) ?? "")")
        }
    }

    private static func scalarText(_ value: JSONValue) -> String? {
        switch value {
        case .null: "null"
        case let .bool(flag): String(flag)
        case let .number(text): text
        case let .string(text): TerminalText.escaped(text)
        case .array, .object, .unreadable: nil
        }
    }

    /// 0.25 → "0.25", 1.0 → "1": the shortest exact spelling, as a person would write it.
    static func number(_ value: Double) -> String {
        if value.isFinite, value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
        return value.description
    }

    /// 0.215 → "22%": whole percent is what a person reads; `--json` keeps the exact number.
    static func percent(_ progress: Double) -> String {
        guard progress.isFinite else { return "-" }
        return "\(Int((progress * 100).rounded()))%"
    }
}
