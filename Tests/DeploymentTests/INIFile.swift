/// A systemd-style INI file (unit, .link, .network): sections of `Key=value` lines, comments and
/// blank lines skipped, a key may repeat. Enough to check what our own files say.
struct INIFile {
    struct Entry: Equatable {
        var section: String
        var key: String
        var value: String
        var line: Int
    }

    var entries: [Entry] = []
    /// Lines that are neither comment, blank, section header nor `Key=value`.
    var malformed: [Int] = []

    init(_ text: String) {
        var section = ""
        for (index, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = raw.trimmingCharacters(in: .whitespaces)
            if line.isEmpty || line.hasPrefix("#") || line.hasPrefix(";") { continue }
            if line.hasPrefix("["), line.hasSuffix("]") {
                section = String(line.dropFirst().dropLast())
            } else if let equals = line.firstIndex(of: "="), equals != line.startIndex,
                line[..<equals].allSatisfy({ $0.isLetter || $0.isNumber })
            {
                entries.append(
                    Entry(
                        section: section, key: String(line[..<equals]),
                        value: String(line[line.index(after: equals)...]), line: index + 1))
            } else {
                malformed.append(index + 1)
            }
        }
    }

    var sections: [String] { entries.map(\.section).reduce(into: []) { if !$0.contains($1) { $0.append($1) } } }

    func values(_ section: String, _ key: String) -> [String] {
        entries.filter { $0.section == section && $0.key == key }.map(\.value)
    }

    func value(_ section: String, _ key: String) -> String? { values(section, key).last }

    /// Space-separated words of every assignment of the key.
    func words(_ section: String, _ key: String) -> [String] {
        values(section, key).flatMap { $0.split(separator: " ").map(String.init) }
    }
}
