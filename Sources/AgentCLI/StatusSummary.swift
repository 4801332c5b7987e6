import WireFormat

/// `aidenctl status`: the board's `/v1/status` in a few lines, like `systemctl status`: what is wrong first, then
/// the board (version, uptime, epoch, instance), the tasks, the Wake side, the USB link and the phone's app.
/// `--json` prints every field the daemon sent instead; an answer without the board's shape (another version's)
/// is printed field by field (`OutputFormatter.statusFields`), so nothing it says is hidden.
package enum StatusSummary {
    /// The summary, nil when `value` does not have the keys it reads.
    package static func text(_ value: JSONValue) -> String? {
        guard case let .object(status) = value, case let .string(version)? = status["version"],
            case let .object(tasks)? = status["tasks"], case let .object(wake)? = status["wake"],
            let active = tasks["active"]?.unsignedInteger, let total = tasks["total"]?.unsignedInteger
        else { return nil }
        let bluetooth = members(status["bluetooth"])
        let usb = members(status["usb"])
        let transport = string(wake["transport"]) ?? "unknown"

        var problems: [String] = []
        if transport == "bluez" {
            if let problem = string(bluetooth["problem"]) { problems.append("Bluetooth: \(problem)") }
            if bluetooth["gatt_registered"] == .bool(false) && string(bluetooth["problem"]) == nil {
                problems.append("Bluetooth: the Wake service is not registered with bluetoothd")
            }
        }
        if let link = string(usb["link"]), link == "down" { problems.append("USB link down") }
        if let failures = wake["send_failures"]?.unsignedInteger, failures > 0 {
            problems.append("\(failures) Wake\(failures == 1 ? "" : "s") not sent or not delivered since the start")
        }

        var lines: [(String, String)] = []
        for problem in problems { lines.append(("Problem", problem)) }
        var board = "aiden-board \(TerminalText.escaped(version))"
        if let uptime = status["uptime_seconds"]?.unsignedInteger { board += ", up \(duration(uptime))" }
        if let epoch = status["epoch"]?.unsignedInteger { board += ", epoch \(epoch)" }
        if let instance = string(status["instance_id"]) { board += ", instance \(instance)" }
        lines.append(("Board", board))
        var taskLine = "\(active) active, \(total - min(total, active)) ended"
        if members(status["live_activity"])["enabled"] == .bool(false) {
            taskLine += " (Live Activity disabled)"
        }
        lines.append(("Tasks", taskLine))
        lines.append(("Wake", wakeLine(transport: transport, wake: wake, bluetooth: bluetooth)))
        if let link = string(usb["link"]) {
            lines.append(("USB link", link + (string(usb["interface"]).map { " on \($0)" } ?? "")))
        }
        if case let .object(app)? = status["phone_app"], let state = string(app["state"]) {
            lines.append(("Phone app", state))
        }
        let width = lines.map(\.0.count).max() ?? 0
        let head =
            problems.isEmpty
            ? "● aiden-board: running"
            : "● aiden-board: running, \(problems.count) "
                + (problems.count == 1 ? "problem" : "problems")
        return ([head] + lines.map { String(repeating: " ", count: width - $0.0.count + 2) + "\($0.0): \($0.1)" })
            .joined(separator: "\n") + "\n"
    }

    static func wakeLine(transport: String, wake: [String: JSONValue], bluetooth: [String: JSONValue]) -> String {
        var parts = [transport]
        if transport == "bluez" {
            if let adapter = string(bluetooth["adapter"]) { parts[0] += " on \(adapter)" }
            parts.append(bluetooth["wake_subscriber"] == .bool(true) ? "phone subscribed" : "no phone subscribed")
            if bluetooth["advertising"] == .bool(true) { parts.append("advertising") }
        }
        if let sequence = wake["last_seq"]?.unsignedInteger {
            var last = "last #\(sequence)"
            if let reason = string(wake["last_reason"]) { last += " (\(reason))" }
            if let at = string(wake["last_at"]) { last += " at \(at)" }
            parts.append(last)
        } else {
            parts.append("no Wake yet")
        }
        if let sent = wake["sent"]?.unsignedInteger { parts.append("\(sent) sent") }
        return parts.joined(separator: ", ")
    }

    /// `3 d 4 h`, `1 h 5 min`, `4 min 2 s`, `42 s`.
    static func duration(_ seconds: UInt64) -> String {
        let days = seconds / 86_400, hours = seconds % 86_400 / 3600, minutes = seconds % 3600 / 60
        if days > 0 { return "\(days) d \(hours) h" }
        if hours > 0 { return "\(hours) h \(minutes) min" }
        if minutes > 0 { return "\(minutes) min \(seconds % 60) s" }
        return "\(seconds) s"
    }

    /// An object's members; empty when `value` is absent or not an object.
    private static func members(_ value: JSONValue?) -> [String: JSONValue] {
        guard case let .object(members)? = value else { return [:] }
        return members
    }

    /// A string member, escaped for the terminal; nil when absent, null or not a string.
    private static func string(_ value: JSONValue?) -> String? {
        guard case let .string(text)? = value else { return nil }
        return TerminalText.escaped(text)
    }
}
