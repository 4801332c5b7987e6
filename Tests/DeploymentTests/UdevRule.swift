/// One udev rule line parsed into its `KEY{attribute}OP"value"` tokens, with the checks udev
/// itself applies when it loads rules (udev(7)): known keys, an operator each key allows, a
/// double-quoted value, tokens separated by commas. Debian 12's udevadm has no `verify` (it
/// arrived in systemd 254), so this is how the tests check our rule files.
struct UdevRule: Equatable {
    struct Token: Equatable {
        var key: String
        var attribute: String?
        var op: String
        var value: String
    }

    var tokens: [Token]

    /// Keys that only match.
    static let matchKeys: Set = [
        "ACTION", "DEVPATH", "KERNEL", "KERNELS", "NAME", "SUBSYSTEM", "SUBSYSTEMS",
        "DRIVER", "DRIVERS", "ATTRS", "TAGS", "SYMLINK", "TEST", "PROGRAM", "RESULT",
        "CONST", "SYSCTL",
    ]
    /// Keys that only assign.
    static let assignKeys: Set = [
        "OWNER", "GROUP", "MODE", "SECLABEL", "RUN", "LABEL", "GOTO", "IMPORT",
        "OPTIONS", "NAME", "SYMLINK",
    ]
    /// Keys that do both.
    static let eitherKeys: Set = ["ENV", "ATTR", "TAG", "SYSCTL"]
    /// Keys written with `{attribute}`.
    static let attributeKeys: Set = ["ENV", "ATTR", "ATTRS", "SYSCTL", "TEST", "IMPORT", "RUN", "SECLABEL", "CONST"]

    enum Problem: Error, Equatable, CustomStringConvertible {
        case syntax(String)
        case unknownKey(String)
        case badOperator(String, String)
        case noMatch
        case noAssignment

        var description: String {
            switch self {
            case let .syntax(text): "syntax: \(text)"
            case let .unknownKey(key): "unknown key \(key)"
            case let .badOperator(key, op): "\(key) does not take \(op)"
            case .noMatch: "a rule without a match applies to every device"
            case .noAssignment: "a rule without an assignment does nothing"
            }
        }
    }

    /// The rules of a file: nil for comment and blank lines, a rule or a problem for the others.
    static func parse(file text: String) -> [(line: Int, rule: Result<UdevRule, Problem>)] {
        text.split(separator: "\n", omittingEmptySubsequences: false).enumerated().compactMap { index, raw in
            let line = raw.trimmingCharacters(in: .whitespaces)
            guard !line.isEmpty, !line.hasPrefix("#") else { return nil }
            return (index + 1, Result { () throws(Problem) in try UdevRule(line) })
        }
    }

    init(_ line: String) throws(Problem) {
        var rest = Substring(line)
        tokens = []
        while !rest.isEmpty {
            let key = rest.prefix { $0.isUppercase || $0 == "_" }
            guard !key.isEmpty else { throw .syntax("expected a KEY at '\(rest.prefix(20))'") }
            rest = rest.dropFirst(key.count)
            var attribute: String?
            if rest.first == "{" {
                guard let close = rest.firstIndex(of: "}") else { throw .syntax("unclosed { after \(key)") }
                attribute = String(rest[rest.index(after: rest.startIndex)..<close])
                guard attribute?.isEmpty == false else { throw .syntax("empty {} after \(key)") }
                rest = rest[rest.index(after: close)...]
            }
            let op = ["==", "!=", "+=", "-=", ":=", "="].first { rest.hasPrefix($0) }
            guard let op else { throw .syntax("expected an operator after \(key)") }
            rest = rest.dropFirst(op.count)
            guard rest.first == "\"" else { throw .syntax("the value of \(key) must be in double quotes") }
            rest = rest.dropFirst()
            var value = ""
            var closed = false
            while let character = rest.popFirst() {
                if character == "\\", let escaped = rest.popFirst() {
                    value.append(character)
                    value.append(escaped)
                } else if character == "\"" {
                    closed = true
                    break
                } else {
                    value.append(character)
                }
            }
            guard closed else { throw .syntax("unterminated value of \(key)") }
            tokens.append(try Self.checked(Token(key: String(key), attribute: attribute, op: op, value: value)))
            let spaces = rest.prefix { $0 == " " || $0 == "\t" }
            rest = rest.dropFirst(spaces.count)
            guard !rest.isEmpty else { break }
            guard rest.first == "," else { throw .syntax("expected ',' after the value of \(key)") }
            rest = rest.dropFirst().drop { $0 == " " || $0 == "\t" }
            guard !rest.isEmpty else { throw .syntax("trailing ','") }
        }
        guard tokens.contains(where: \.isMatch) else { throw .noMatch }
        guard tokens.contains(where: { !$0.isMatch }) else { throw .noAssignment }
    }

    private static func checked(_ token: Token) throws(Problem) -> Token {
        let key = token.key
        guard matchKeys.contains(key) || assignKeys.contains(key) || eitherKeys.contains(key) else {
            throw .unknownKey(key)
        }
        if attributeKeys.contains(key) != (token.attribute != nil), key != "IMPORT", key != "RUN" {
            throw .syntax(token.attribute == nil ? "\(key) needs {attribute}" : "\(key) takes no {attribute}")
        }
        let canMatch = matchKeys.contains(key) || eitherKeys.contains(key)
        let canAssign = assignKeys.contains(key) || eitherKeys.contains(key)
        if token.isMatch ? !canMatch : !canAssign { throw .badOperator(key, token.op) }
        if ["-=", "+="].contains(token.op), !["ENV", "TAG", "RUN", "SYMLINK", "OPTIONS"].contains(key) {
            throw .badOperator(key, token.op)
        }
        return token
    }

    func value(_ key: String, _ attribute: String? = nil) -> String? {
        tokens.first { $0.key == key && $0.attribute == attribute }?.value
    }
}

extension UdevRule.Token {
    var isMatch: Bool { op == "==" || op == "!=" }
}
