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

    package enum CodingKeys: String, CodingKey, CaseIterable {
        case active
        case waiting
    }

    private static let members = JSONString.members(CodingKeys.allCases)

    /// Appends `{"active":N,"waiting":M}` to `out` as the encoder writes it, for a body written by hand
    /// (`TaskSnapshot.appendJSON`); the switch makes a new member a compile error until it is written.
    package func appendJSON(to out: inout [UInt8]) {
        out.append(UInt8(ascii: "{"))
        for (index, (key, prefix)) in Self.members.enumerated() {
            if index > 0 { out.append(UInt8(ascii: ",")) }
            out += prefix
            switch key {
            case .active: out += String(active).utf8
            case .waiting: out += String(waiting).utf8
            }
        }
        out.append(UInt8(ascii: "}"))
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
