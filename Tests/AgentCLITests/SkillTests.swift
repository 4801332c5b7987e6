import CommandLineSyntax
import Foundation
import Testing

@testable import AgentCLI

/// skills/aidenbridge/SKILL.md, the operating manual an agent loads: its front matter meets the Agent Skills
/// rules, and every `aidenctl` command, every `--option` and every MCP tool it names is one aidenctl really has
/// (the parser's own command table, `CompletionTable.aidenctl`, and `MCPTools.all`), so the manual cannot teach
/// an agent a command that fails.
@Suite struct SkillTests {
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("skills/aidenbridge")

    @Test func theSkillNamesOnlyWhatAidenctlHas() throws {
        let text = try String(contentsOf: Self.directory.appendingPathComponent("SKILL.md"), encoding: .utf8)
        #expect(SkillCheck.problems(text, directory: "aidenbridge") == [])
        // It teaches the whole life of a task, in both ways.
        for command in ["task start", "task update", "task heartbeat", "task wait", "task end", "task show", "status"] {
            #expect(SkillCheck.commands(text).contains(command), "\(command)")
        }
        for tool in MCPTools.all.map(\.name) { #expect(text.contains("`\(tool)`"), "\(tool)") }
    }

    @Test(arguments: [
        (
            "`aidenctl task start --title T --bogus-flag x`",
            "--bogus-flag is no option of 'aidenctl task start'\n--bogus-flag is no option of aidenctl"
        ),
        ("`aidenctl task wait R --for answer --dismiss immediate`", "--dismiss is no option of 'aidenctl task wait'"),
        ("```sh\naidenctl task frobnicate R\n```", "no command 'aidenctl task frobnicate'"),
        ("`aidenctl tsak start`", "no command 'aidenctl tsak'"),
        ("Pass --no-such-flag to it.", "--no-such-flag is no option of aidenctl"),
        ("Call `task_frobnicate` then.", "task_frobnicate is no MCP tool of aidenctl mcp"),
        ("`aidenctl task end R -z`", "-z is no option of 'aidenctl task end'"),
    ])
    func aBogusNameIsFound(body: String, problem: String) {
        let text = "---\nname: aidenbridge\ndescription: Test.\n---\n\n" + body + "\n"
        #expect(SkillCheck.problems(text, directory: "aidenbridge") == problem.split(separator: "\n").map(String.init))
    }

    @Test(arguments: [
        ("# No front matter\n", "no front matter: the file must begin with --- and name and description"),
        (
            "---\nname: AidenBridge\ndescription: x\n---\n",
            "name 'AidenBridge' must be 1 to 64 of a-z 0-9 -, no leading, trailing or double -"
        ),
        ("---\nname: other\ndescription: x\n---\n", "name 'other' must be the directory's, aidenbridge"),
        ("---\nname: aidenbridge\n---\n", "description must be 1 to 1024 characters"),
        (
            "---\nname: aidenbridge\ndescription: \(String(repeating: "x", count: 1025))\n---\n",
            "description must be 1 to 1024 characters"
        ),
        ("---\nname: aidenbridge\ndescription: Use <b>this</b>\n---\n", "description must not hold XML tags"),
    ])
    func aBadFrontMatterIsFound(text: String, problem: String) {
        #expect(SkillCheck.problems(text, directory: "aidenbridge") == [problem])
    }
}

/// Reads a SKILL.md as an agent would be taught by it.
enum SkillCheck {
    static let table = CompletionTable.aidenctl

    static func problems(_ text: String, directory: String) -> [String] {
        var problems = frontMatterProblems(text, directory: directory)
        let body = text
        var named: Set<String> = []
        for fragment in code(body) {
            for line in fragment.split(separator: "\n") {
                for invocation in invocations(String(line)) { problems += check(invocation, named: &named) }
            }
        }
        let everyOption = Set(table.commands.flatMap(\.options).map(\.spelling))
        for option in matches(of: #"(?<![\w-])--[a-z][a-z-]*"#, in: body) where !everyOption.contains(option) {
            problems.append("\(option) is no option of aidenctl")
        }
        let tools = Set(MCPTools.all.map(\.name))
        for tool in matches(of: #"\btask_[a-z_]+\b"#, in: body) where !tools.contains(tool) {
            problems.append("\(tool) is no MCP tool of aidenctl mcp")
        }
        var seen: Set<String> = []
        return problems.filter { seen.insert($0).inserted }
    }

    /// The commands (`task start`) the text's code names.
    static func commands(_ text: String) -> Set<String> {
        var named: Set<String> = []
        for fragment in code(text) {
            for line in fragment.split(separator: "\n") {
                for invocation in invocations(String(line)) { _ = check(invocation, named: &named) }
            }
        }
        return named
    }

    private static func frontMatterProblems(_ text: String, directory: String) -> [String] {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        guard lines.first == "---", let end = lines.dropFirst().firstIndex(of: "---") else {
            return ["no front matter: the file must begin with --- and name and description"]
        }
        var fields: [String: String] = [:]
        for line in lines[1..<end] {
            guard let colon = line.firstIndex(of: ":") else { continue }
            fields[String(line[..<colon])] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        var problems: [String] = []
        let name = fields["name"] ?? ""
        let allowed = name.unicodeScalars.allSatisfy {
            ("a"..."z").contains($0) || ("0"..."9").contains($0) || $0 == "-"
        }
        if !(1...64).contains(name.count) || !allowed || name.hasPrefix("-") || name.hasSuffix("-")
            || name.contains("--")
        {
            problems.append("name '\(name)' must be 1 to 64 of a-z 0-9 -, no leading, trailing or double -")
        } else if name != directory {
            problems.append("name '\(name)' must be the directory's, \(directory)")
        }
        let description = fields["description"] ?? ""
        if !(1...1024).contains(description.count) {
            problems.append("description must be 1 to 1024 characters")
        } else if !matches(of: #"<[A-Za-z/][^>]*>"#, in: description).isEmpty {
            problems.append("description must not hold XML tags")
        }
        return problems
    }

    /// The fenced blocks and the inline code spans.
    private static func code(_ text: String) -> [String] {
        var fragments: [String] = []
        var block: [Substring]?
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("```") {
                if let lines = block { fragments.append(lines.joined(separator: "\n")) }
                block = block == nil ? [] : nil
            } else if block != nil {
                block?.append(line)
            } else {
                fragments += matches(of: #"`[^`]+`"#, in: String(line)).map { String($0.dropFirst().dropLast()) }
            }
        }
        return fragments
    }

    /// Each `aidenctl …` on a line, split into words (a quoted text is one word), up to a pipe or a `;`.
    private static func invocations(_ line: String) -> [[String]] {
        var result: [[String]] = []
        var words: [String]?
        for token in tokens(line) {
            if token == "|" || token == ";" || token == "&&" {
                if let words { result.append(words) }
                words = nil
            } else if token == "aidenctl" || token.hasSuffix("/aidenctl") || token.hasSuffix("(aidenctl") {
                if let words { result.append(words) }
                words = []
            } else {
                words?.append(token)
            }
        }
        if let words { result.append(words) }
        return result
    }

    private static func tokens(_ line: String) -> [String] {
        var tokens: [String] = []
        var current = ""
        var quote: Character?
        for character in line {
            if let open = quote {
                if character == open { quote = nil } else { current.append(character) }
            } else if character == "\"" || character == "'" {
                quote = character
            } else if character == " " {
                if !current.isEmpty { tokens.append(current) }
                current = ""
            } else {
                current.append(character)
            }
        }
        if !current.isEmpty { tokens.append(current) }
        return tokens
    }

    /// One invocation against the parser's table: its command words resolve to a command, and each option is one
    /// that command takes.
    private static func check(_ words: [String], named: inout Set<String>) -> [String] {
        var path: [String] = []
        var resolving = true
        var options: [String] = []
        var index = 0
        let valued = Set(table.commands.flatMap(\.options).filter { $0.value != .none }.map(\.spelling))
        while index < words.count {
            let word = words[index]
            index += 1
            if word == "--" { break }
            if word.hasPrefix("--") {
                let spelling = String(word.split(separator: "=", maxSplits: 1)[0])
                options.append(spelling)
                if valued.contains(spelling) && !word.contains("=") { index += 1 }
            } else if word.hasPrefix("-") && word.count == 2 {
                options.append(word)
            } else if resolving, table.commands.contains(where: { $0.words == path + [word] }) {
                path.append(word)
            } else {
                if resolving, path.isEmpty || !table.subcommands(of: command(path)).isEmpty {
                    return ["no command 'aidenctl \((path + [word]).joined(separator: " "))'"]
                }
                resolving = false
            }
        }
        let resolved = command(path)
        named.insert(path.joined(separator: " "))
        let name = (["aidenctl"] + path).joined(separator: " ")
        return options.compactMap { option in
            let known = resolved.options.contains {
                $0.spelling == option || $0.letter.map { "-\($0)" } == option
            }
            return known ? nil : "\(option) is no option of '\(name)'"
        }
    }

    private static func command(_ path: [String]) -> CompletionTable.Command {
        table.commands.first { $0.words == path } ?? CompletionTable.Command(words: path, summary: "", options: [])
    }

    private static func matches(of pattern: String, in text: String) -> [String] {
        guard let expression = try? NSRegularExpression(pattern: pattern) else { return [] }
        let range = NSRange(text.startIndex..., in: text)
        return expression.matches(in: text, range: range).compactMap {
            Range($0.range, in: text).map { String(text[$0]) }
        }
    }
}
