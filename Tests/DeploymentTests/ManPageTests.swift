import AgentCLI
import CommandLineSyntax
import Foundation
import Testing

@testable import BoardService
@testable import Configuration
@testable import PhoneService

/// `scripts/man OUTDIR`: the four pages pandoc makes from docs/man/, rendered by groff without a warning, and
/// each naming what its program's own tables hold: every option the parsers know, every aidenctl command,
/// every configuration key with the default the code has.
@Suite struct ManPageTests {
    static let pages = ["aiden-board.8", "aiden-phone.1", "aidenctl.1", "aiden.toml.5"]

    /// The Markdown of a page.
    static func source(_ page: String) throws -> String { try Repository.text("docs/man/\(page).md") }

    /// The lines of a page's `# NAME` section, up to the next `# ` heading.
    static func section(_ name: String, of text: String) -> [Substring] {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        guard let start = lines.firstIndex(of: "# \(name)") else { return [] }
        let rest = lines[(start + 1)...]
        return Array(rest.prefix { !$0.hasPrefix("# ") })
    }

    /// The definition terms of a section: the lines that a `:   ` definition follows.
    static func terms(_ section: [Substring]) -> [Substring] {
        zip(section, section.dropFirst()).filter { $0.1.hasPrefix(":   ") }.map(\.0)
    }

    @Test(.enabled(if: tool("/usr/bin/pandoc") != nil && tool("/usr/bin/groff") != nil))
    func everyPageRendersWithoutAWarning() throws {
        let scratch = try Scratch("aiden-man")
        let made = try run("/bin/bash", ["\(Repository.root)/scripts/man", "\(scratch.path)/man"])
        #expect(made.status == 0, "\(made.error)")
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: "\(scratch.path)/man").sorted() == Self.pages.sorted())
        for page in Self.pages {
            let file = "\(scratch.path)/man/\(page)"
            let roff = try String(contentsOfFile: file, encoding: .utf8)
            let name = page.split(separator: ".").dropLast().joined(separator: ".").uppercased()
            let section = String(page.split(separator: ".").last ?? "")
            #expect(roff.contains(".TH \"\(name)\" \"\(section)\""), "\(page): title and section")
            let groff = try run("/usr/bin/groff", ["-man", "-Tutf8", "-ww", "-z", file])
            #expect(groff.status == 0 && groff.error.isEmpty, "\(page): \(groff.error)")
            if let man = tool("/usr/bin/man") {
                let shown = try run(
                    man, ["--warnings", "-l", file], environment: ["MANWIDTH": "80", "MAN_KEEP_FORMATTING": ""])
                #expect(shown.status == 0 && shown.error.isEmpty, "\(page): \(shown.error)")
                for heading in ["NAME", "SYNOPSIS", "DESCRIPTION", "SEE ALSO"] {
                    #expect(shown.output.contains("\n\(heading)\n"), "\(page) shows \(heading)")
                }
            }
        }
    }

    @Test func scriptsManRefusesWithoutAnOutputDirectory() throws {
        let none = try run("/bin/bash", ["\(Repository.root)/scripts/man"])
        #expect(none.status == 64)
        #expect(none.error.contains("usage: scripts/man OUTDIR"))
        let scratch = try Scratch("aiden-man")
        let noPandoc = try run(
            "/bin/bash", ["\(Repository.root)/scripts/man", "\(scratch.path)/man"],
            environment: ["PANDOC": "\(scratch.path)/no-pandoc"])
        #expect(noPandoc.status == 69)
        #expect(noPandoc.error.contains("install pandoc"))
    }

    /// `**--name**` (with `, **-x**` when a letter spells it too) as a term of the OPTIONS section.
    static func documents(_ spelling: String, letter: Character?, in options: [Substring]) -> Bool {
        let terms = Self.terms(options)
        return terms.contains { term in
            term.hasPrefix("**\(spelling)**") && (letter.map { term.contains("**-\($0)**") } ?? true)
        }
    }

    @Test func aidenctlsOptionsAndCommandsAreEachDocumented() throws {
        let text = try Self.source("aidenctl.1")
        let options = Self.section("OPTIONS", of: text)
        let table = CompletionTable.aidenctl
        var all: [CompletionTable.Option] = []
        for option in table.commands.flatMap(\.options) where !all.contains(where: { $0.name == option.name }) {
            all.append(option)
        }
        #expect(all.count > 20)
        for option in all {
            #expect(Self.documents(option.spelling, letter: option.letter, in: options), "OPTIONS: \(option.spelling)")
            if case let .choices(choices) = option.value {
                let entry = options.drop { !$0.hasPrefix("**\(option.spelling)**") }.prefix(5).joined()
                for choice in choices where !["true", "false"].contains(choice) {
                    #expect(entry.contains("**\(choice)**"), "OPTIONS: \(option.spelling) names \(choice)")
                }
            }
        }
        let commands = Self.terms(Self.section("COMMANDS", of: text))
        for command in table.commands where !command.words.isEmpty && table.subcommands(of: command).isEmpty {
            #expect(commands.contains { $0.hasPrefix("**\(command.path)**") }, "COMMANDS: \(command.path)")
        }
        let synopsis = Self.section("SYNOPSIS", of: text).joined(separator: "\n")
        for topic in HelpTopic.allCases where topic.subcommands.isEmpty && topic != .main {
            let words = topic.words.joined(separator: " ")
            #expect(
                synopsis.contains("**\(words)**") || synopsis.contains("**aidenctl \(words)**"),
                "SYNOPSIS: \(topic.commandLine)")
        }
    }

    @Test func theDaemonsOptionsAreEachDocumented() throws {
        let board = Self.section("OPTIONS", of: try Self.source("aiden-board.8"))
        for option in BoardOption.allCases {
            let letter: Character? = option == .help ? "h" : nil
            #expect(Self.documents(option.spelling, letter: letter, in: board), "aiden-board(8): \(option.spelling)")
        }
        let phone = Self.section("OPTIONS", of: try Self.source("aiden-phone.1"))
        for option in PhoneOption.allCases {
            let letter: Character? = option == .help ? "h" : nil
            #expect(Self.documents(option.spelling, letter: letter, in: phone), "aiden-phone(1): \(option.spelling)")
        }
    }

    @Test func theExitStatusesAreTheCodes() throws {
        let board = Self.terms(Self.section("EXIT STATUS", of: try Self.source("aiden-board.8")))
        let boardCodes: [Int32] = [
            0, 64, BoardDaemon.configurationExitCode, BoardStartError.server(.startFailed("probe")).exitCode,
            BoardStartError.state(BoardStateError(path: "probe", message: "probe")).exitCode,
        ]
        for code in boardCodes { #expect(board.contains("**\(code)**"), "aiden-board(8): \(code)") }
        let phone = Self.terms(Self.section("EXIT STATUS", of: try Self.source("aiden-phone.1")))
        for code in [0, 64, PhoneDaemon.configurationExitCode, PhoneDaemon.stateExitCode, PhoneDaemon.systemExitCode] {
            #expect(phone.contains("**\(code)**"), "aiden-phone(1): \(code)")
        }
        let aidenctl = Self.terms(Self.section("EXIT STATUS", of: try Self.source("aidenctl.1")))
        for code in [ExitCode.ok, .failure, .usage, .dataError, .unavailable] {
            #expect(aidenctl.contains("**\(code.rawValue)**"), "aidenctl(1): \(code)")
        }
    }

    /// The keys a table of a configuration knows, as its parser's "unknown key" error lists them.
    static func keys(of table: String, parse: (String) throws(ConfigurationError) -> Void) -> [String] {
        do {
            try parse("[\(table)]\nno_such_key = 1\n")
        } catch {
            guard let known = error.message.split(separator: "(known: ").last?.dropLast() else { return [] }
            return known.split(separator: ", ").map(String.init)
        }
        return []
    }

    /// `table.key` and the default the page gives, from each `**key** (type, default **X**)` term of a section.
    static func documentedDefaults(_ section: [Substring]) -> [String: String] {
        var table = ""
        var result: [String: String] = [:]
        for line in section {
            if line.hasPrefix("## [") { table = String(line.dropFirst(4).dropLast()) }
            guard line.hasPrefix("**"), let close = line.dropFirst(2).firstIndex(of: "*"),
                let defaultStart = line.range(of: ", default **"), line.hasSuffix("**)")
            else { continue }
            let key = line[line.index(line.startIndex, offsetBy: 2)..<close]
            result["\(table).\(key)"] = String(line[defaultStart.upperBound..<line.index(line.endIndex, offsetBy: -3)])
        }
        return result
    }

    @Test func aidenTomlDocumentsEveryKeyWithItsDefault() throws {
        let text = try Self.source("aiden.toml.5")
        let long = try Repository.text("docs/configuration.md")
        let files: [(section: String, tables: [String], parse: (String) throws(ConfigurationError) -> Bool)] = [
            (
                "BOARD.TOML", BoardConfiguration.tableNames,
                { text throws(ConfigurationError) in try BoardConfiguration.parse(text, file: "probe") == .defaults }
            ),
            (
                "PHONE.TOML", PhoneConfiguration.tableNames,
                { text throws(ConfigurationError) in try PhoneConfiguration.parse(text, file: "probe") == .defaults }
            ),
        ]
        for file in files {
            let documented = Self.documentedDefaults(Self.section(file.section, of: text))
            var known: [String] = []
            for table in file.tables {
                let keys = Self.keys(of: table) { text throws(ConfigurationError) in _ = try file.parse(text) }
                #expect(!keys.isEmpty, "\(table) has keys")
                known += keys.map { "\(table).\($0)" }
            }
            #expect(documented.keys.sorted() == known.sorted(), "\(file.section): every key, no other")
            for (path, value) in documented {
                let parts = path.split(separator: ".")
                let probe = "[\(parts[0])]\n\(parts[1]) = \(value)\n"
                #expect((try? file.parse(probe)) == true, "\(file.section): \(path) defaults to \(value)")
                #expect(long.contains("`\(path)`"), "docs/configuration.md lists \(path)")
            }
        }
    }

    @Test func theUnitsPointAtTheManPages() throws {
        let expected = [
            "systemd/aiden-board.service": "man:aiden-board(8) man:aiden.toml(5)",
            "systemd/aiden-board.socket": "man:aiden-board(8) man:aiden.toml(5)",
            "systemd/aiden-gadget.service": "man:aiden-board(8)",
            "systemd/aiden-udc.target": "man:aiden-board(8)",
            "systemd/aiden-phone.service": "man:aiden-phone(1) man:aiden.toml(5)",
            "systemd/user/aiden-phone.service": "man:aiden-phone(1) man:aiden.toml(5)",
        ]
        for (unit, pages) in expected {
            let documentation = INIFile(try Repository.text(unit)).value("Unit", "Documentation")
            #expect(documentation?.hasPrefix(pages + " file:///usr/share/doc/aidenbridge/") == true, "\(unit)")
        }
    }
}
