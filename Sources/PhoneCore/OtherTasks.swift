/// How many other tasks visible to this phone are active (and not waiting) and waiting for the person:
/// `"others":{"active":2,"waiting":1}` in `/api/live-activity/current`.
package struct OtherTasks: Sendable, Hashable, Decodable {
    package var active: UInt64
    package var waiting: UInt64

    package init(active: UInt64, waiting: UInt64) {
        self.active = active
        self.waiting = waiting
    }

    enum CodingKeys: String, CodingKey {
        case active
        case waiting
    }

    /// A missing or malformed count reads as 0: the line is a hint, not a promise.
    package init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            active: container.lenient(UInt64.self, forKey: .active) ?? 0,
            waiting: container.lenient(UInt64.self, forKey: .waiting) ?? 0)
    }

    /// "+2 running · 1 waiting", "+1 running", "1 waiting"; nil when both are 0.
    package var cardLine: String? {
        var parts: [String] = []
        if active > 0 { parts.append("+\(active) running") }
        if waiting > 0 { parts.append("\(waiting) waiting") }
        return parts.isEmpty ? nil : parts.joined(separator: " · ")
    }
}
