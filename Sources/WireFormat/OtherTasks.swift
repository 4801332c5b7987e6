/// How many other tasks visible to a phone are active (and not waiting) and waiting for the person:
/// `"others":{"active":2,"waiting":1}` beside the snapshot in `/api/live-activity/current`. The board counts them
/// (`TaskStore.selection(forPhone:…)`); the phone reads them leniently and shows `cardLine`.
package struct OtherTasks: Sendable, Hashable, Codable {
    package var active: Int
    package var waiting: Int

    package init(active: Int = 0, waiting: Int = 0) {
        self.active = active
        self.waiting = waiting
    }

    enum CodingKeys: String, CodingKey {
        case active
        case waiting
    }

    /// A missing, malformed or negative count reads as 0: the line is a hint, not a promise.
    package init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            active: max(0, container.lenient(Int.self, forKey: .active) ?? 0),
            waiting: max(0, container.lenient(Int.self, forKey: .waiting) ?? 0))
    }

    /// "+2 running · 1 waiting", "+1 running", "1 waiting"; nil when both are 0.
    package var cardLine: String? {
        var parts: [String] = []
        if active > 0 { parts.append("+\(active) running") }
        if waiting > 0 { parts.append("\(waiting) waiting") }
        return parts.isEmpty ? nil : parts.joined(separator: " · ")
    }
}
