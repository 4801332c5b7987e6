import CommandLineSyntax
import Foundation
import Testing
import WireFormat

@testable import AgentCLI

/// `aidenctl completion bash|zsh|fish`: the table is the parser's (every value it offers parses, every command
/// it names resolves), and the scripts work in the real shells.
@Suite("aidenctl completion")
struct CompletionTests {
    static let table = CompletionTable.aidenctl

    static func command(_ path: String) throws -> CompletionTable.Command {
        try #require(table.commands.first { $0.path == path }, "no command \(path)")
    }

    @Test func theCommandsAreTheParsersOwn() throws {
        #expect(
            Self.table.subcommands(of: try Self.command("")).map(\.path) == [
                "task", "events", "status", "mcp", "hook", "completion", "help",
            ])
        #expect(
            Self.table.subcommands(of: try Self.command("task")).compactMap(\.words.last)
                == ["start", "run", "update", "heartbeat", "end", "list", "show", "wait"])
        for topic in HelpTopic.allCases where topic != .main {
            let command = try Self.command(topic.words.joined(separator: " "))
            #expect(command.summary == topic.summary)
            // Every option the completion offers for a command, the parser accepts there, and no other.
            #expect(Set(command.options.map(\.name)) == Set(OptionName.all(of: topic).map(\.rawValue)), "\(topic)")
            let help = try CommandLineParser.parse(topic.words + ["--help"])
            #expect(help.command == .help(topic))
        }
        #expect(try Self.command("completion").arguments == ["bash", "zsh", "fish"])
        #expect(try Self.command("help").arguments == ["task", "events", "status", "mcp", "hook", "completion"])
        #expect(Self.table.commands.filter(\.runsCommand).map(\.path) == ["task run"])
    }

    /// A minimal valid command line for each command, to which one option and value are added.
    static let base: [HelpTopic: [String]] = [
        .taskStart: ["task", "start", "--title", "T"],
        .taskRun: ["task", "run", "--title", "T"],
        .taskUpdate: ["task", "update", "R"],
        .taskEnd: ["task", "end", "R"],
    ]

    @Test func everyValueOfferedIsAcceptedAndOthersAreRefused() throws {
        var checked = 0
        for topic in HelpTopic.allCases {
            for option in try Self.command(topic.words.joined(separator: " ")).options {
                guard case let .choices(choices) = option.value, let base = Self.base[topic] else { continue }
                let tail = topic == .taskRun ? ["--", "true"] : []
                // task end needs its --status; the others need a field to change.
                let extra = topic == .taskEnd && option.name != "status" ? ["--status", "completed"] : []
                for choice in choices {
                    let line = base + extra + [option.spelling, choice] + tail
                    #expect(throws: Never.self, "\(line)") { try CommandLineParser.parse(line) }
                    checked += 1
                }
                let refused = base + extra + [option.spelling, "not-a-choice"] + tail
                #expect(throws: UsageError.self, "\(refused)") { try CommandLineParser.parse(refused) }
            }
        }
        #expect(checked > 30)
        let end = try #require(try Self.command("task end").options.first { $0.name == "status" })
        #expect(end.value == .choices(TaskStatus.terminal.map(\.rawValue)))
        let start = try #require(try Self.command("task start").options.first { $0.name == "status" })
        #expect(start.value == .choices(["running", "needs_app"]))
        #expect(try Self.command("").options.first { $0.name == "socket" }?.value == .file)
        #expect(try Self.command("task start").options.first { $0.name == "quiet" }?.letter == "q")
    }

    @Test func theCommandPrintsEachScriptAndRefusesOtherShells() throws {
        for shell in CompletionShell.allCases {
            #expect(try CommandLineParser.parse(["completion", shell.rawValue]).command == .completion(shell))
            let outcome = AgentCLI.parse(["completion", shell.rawValue], environment: [:], version: "0")
            #expect(outcome == .done(CLIOutcome(standardOutput: shell.script(for: .aidenctl), exitCode: .ok)))
        }
        for line in [
            ["completion"], ["completion", "tcsh"], ["completion", "bash", "zsh"], ["completion", "bash", "--json"],
        ] {
            #expect(throws: UsageError.self, "\(line)") { try CommandLineParser.parse(line) }
        }
        #expect(HelpTopic.main.usage.contains("  completion SHELL   print the bash, zsh or fish completion script\n"))
    }

    // MARK: The real shells

    struct Run {
        var status: Int32
        var output: String
        var error: String
    }

    /// Runs `program` with `arguments`, the built aidenctl first on PATH and a scratch HOME.
    static func shell(_ program: String, _ arguments: [String]) throws -> Run {
        let binary = try #require(AidenctlProcessTests.binary, "aidenctl not built")
        var template = Array("/tmp/aidenctl-completion-XXXXXX".utf8CString)
        let home = try #require(mkdtemp(&template).map { String(cString: $0) })
        defer { try? FileManager.default.removeItem(atPath: home) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: program)
        process.arguments = arguments
        process.environment = [
            "PATH": binary.deletingLastPathComponent().path + ":/usr/bin:/bin", "HOME": home,
            "XDG_CONFIG_HOME": home + "/config", "XDG_DATA_HOME": home + "/data", "LANG": "C.UTF-8",
        ]
        let output = Pipe()
        let error = Pipe()
        process.standardOutput = output
        process.standardError = error
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let out = output.fileHandleForReading.readDataToEndOfFile()
        let err = error.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Run(
            status: process.terminationStatus, output: String(decoding: out, as: UTF8.self),
            error: String(decoding: err, as: UTF8.self))
    }

    static let bash = "/bin/bash"
    static let zsh = ["/usr/bin/zsh", "/bin/zsh"].first { FileManager.default.isExecutableFile(atPath: $0) }
    static let fish = ["/usr/bin/fish", "/bin/fish"].first { FileManager.default.isExecutableFile(atPath: $0) }

    /// COMP_WORDS as bash would split the line (it splits at `=`), the cursor on the last word, and COMPREPLY.
    static let bashCases: [([String], [String])] = [
        (["aidenctl", ""], ["task", "events", "status", "mcp", "hook", "completion", "help"]),
        (["aidenctl", "hook", ""], ["claude", "codex"]),
        (["aidenctl", "hook", "claude", "--t"], ["--timeout"]),
        (["aidenctl", "task", "st"], ["start"]),
        (["aidenctl", "--socket", "/tmp/s", "task", "he"], ["heartbeat"]),
        (["aidenctl", "--json", "task", "e"], ["end"]),
        (["aidenctl", "task", "end", "R", "--status", ""], ["completed", "failed", "canceled"]),
        (["aidenctl", "task", "end", "--status", "=", "c"], ["completed", "canceled"]),
        (["aidenctl", "task", "end", "--status", "="], ["completed", "failed", "canceled"]),
        (["aidenctl", "task", "start", "--status", ""], ["running", "needs_app"]),
        (["aidenctl", "task", "update", "R", "--phase", "wa"], ["waiting_app", "waiting_user"]),
        (["aidenctl", "task", "update", "R", "--ph"], ["--phone-id", "--phase"]),
        (["aidenctl", "task", "start", "--can-stop", ""], ["true", "false"]),
        (["aidenctl", "task", "start", "--title", ""], []),
        (["aidenctl", "task", "start", "--title", "T", "--step", "S", "--pro"], ["--progress"]),
        (["aidenctl", "task", "run", "--pro"], ["--progress", "--progress-from-stdout"]),
        (["aidenctl", "events", "--"], ["--socket", "--json", "--help", "--version", "--since", "--follow"]),
        (
            ["aidenctl", "task", "heartbeat", "-"],
            ["--socket", "--json", "--quiet", "-q", "--help", "-h", "--version", "--id"]
        ),
        (["aidenctl", "completion", ""], ["bash", "zsh", "fish"]),
        (["aidenctl", "help", "t"], ["task"]),
        (["aidenctl", "task", "list", ""], ["--socket", "--json", "--help", "-h", "--version"]),
        (["aidenctl", "task", "run", "--title", "T", "--", "aidenc"], ["aidenctl"]),
    ]

    @Test(arguments: bashCases)
    func bashCompletes(words: [String], expected: [String]) throws {
        let array = words.map { "'" + $0 + "'" }.joined(separator: " ")
        let script = """
            source <(aidenctl completion bash) || exit 3
            COMP_WORDS=(\(array)); COMP_CWORD=\(words.count - 1)
            COMP_LINE="${COMP_WORDS[*]}"; COMP_POINT=${#COMP_LINE}
            _aidenctl
            printf '%s\\n' "${COMPREPLY[@]}"
            """
        let run = try Self.shell(Self.bash, ["--norc", "--noprofile", "-c", script])
        #expect(run.status == 0 && run.error.isEmpty, "\(run.error)")
        #expect(run.output.split(separator: "\n").map(String.init) == expected, "\(words)")
    }

    @Test func bashCompletesAPathForTheSocket() throws {
        let script = """
            source <(aidenctl completion bash)
            mkdir -p "$HOME/sockets" && touch "$HOME/sockets/agent.sock"
            COMP_WORDS=(aidenctl status --socket "$HOME/sockets/ag"); COMP_CWORD=3
            _aidenctl
            printf '%s\\n' "${COMPREPLY[@]}"
            """
        let run = try Self.shell(Self.bash, ["--norc", "--noprofile", "-c", script])
        #expect(run.status == 0 && run.error.isEmpty, "\(run.error)")
        #expect(run.output.hasSuffix("/sockets/agent.sock\n"))
    }

    @Test(.enabled(if: zsh != nil))
    func zshReadsTheScriptAndRegistersIt() throws {
        let zsh = try #require(Self.zsh)
        let syntax = try Self.shell(zsh, ["-c", "aidenctl completion zsh > $HOME/_aidenctl && zsh -n $HOME/_aidenctl"])
        #expect(syntax.status == 0 && syntax.error.isEmpty, "\(syntax.error)")
        let loaded = try Self.shell(
            zsh,
            [
                "-f", "-c",
                "autoload -Uz compinit && compinit -u -D && source <(aidenctl completion zsh) && print -r -- $_comps[aidenctl]",
            ])
        #expect(loaded.status == 0 && loaded.error.isEmpty, "\(loaded.error)")
        #expect(loaded.output == "_aidenctl\n")
    }

    /// A fish candidate without its description.
    static func candidate(_ line: String) -> String {
        String(line.split(separator: "\t", omittingEmptySubsequences: false).first ?? "")
    }

    @Test(.enabled(if: fish != nil))
    func fishReadsTheScriptAndCompletes() throws {
        let fish = try #require(Self.fish)
        let syntax = try Self.shell(
            fish, ["-c", "aidenctl completion fish > $HOME/aidenctl.fish; and fish -n $HOME/aidenctl.fish"])
        #expect(syntax.status == 0 && syntax.error.isEmpty, "\(syntax.error)")
        let cases: [(String, [String])] = [
            ("aidenctl task st", ["start\tstart a task and print its request id (last line)"]),
            ("aidenctl task end R --status ", ["canceled", "completed", "failed"]),
            ("aidenctl task end --status=f", ["--status=failed"]),
            ("aidenctl completion z", ["zsh"]),
            ("aidenctl --json ev", ["events\tprint the board's task transitions (--follow: as they happen)"]),
            ("aidenctl events --fol", ["--follow\tkeep printing new events"]),
            ("aidenctl task start --title ", []),
        ]
        for (line, expected) in cases {
            let run = try Self.shell(
                fish, ["--no-config", "-c", "aidenctl completion fish | source; complete -C '\(line)'"])
            #expect(run.status == 0 && run.error.isEmpty, "\(line): \(run.error)")
            let got: [String] = run.output.split(separator: "\n").map(String.init)
            let words: [String] = got.map(Self.candidate).sorted()
            let wanted: [String] = expected.map(Self.candidate).sorted()
            #expect(words == wanted, "\(line): \(got)")
            for entry in expected where entry.contains("\t") { #expect(got.contains(entry), "\(line): \(got)") }
        }
    }
}
