import CommandLineSyntax
import Testing

@testable import PhoneService

@Suite struct PhoneCommandLineTests {
    static let valid: [([String], PhoneCommand)] = [
        // No --config: the standard places (PhonePaths), decided when it runs.
        ([], .run(configPath: nil, json: false)),
        (["--json"], .run(configPath: nil, json: true)),
        (["--config", "p.toml"], .run(configPath: "p.toml", json: false)),
        (["--config=p.toml", "--json"], .run(configPath: "p.toml", json: true)),
        (["--json", "--config", "/x/p.toml"], .run(configPath: "/x/p.toml", json: true)),
        (["--help"], .help),
        (["-h"], .help),
        (["--bogus", "--help"], .help),
        (["--version"], .version),
        (["--json", "-h"], .help),
        (["--config", "-p.toml"], .run(configPath: "-p.toml", json: false)),
        (["doctor"], .doctor(configPath: nil, json: false)),
        (["doctor", "--config", "p.toml"], .doctor(configPath: "p.toml", json: false)),
        (["--config=p.toml", "doctor"], .doctor(configPath: "p.toml", json: false)),
        (["doctor", "--help"], .help),
        (["--", "doctor"], .doctor(configPath: nil, json: false)),
        (["doctor", "--json"], .doctor(configPath: nil, json: true)),
        (["stop"], .answer(.stop, requestID: nil, configPath: nil)),
        (["done", "chat_1"], .answer(.done, requestID: "chat_1", configPath: nil)),
        (["refuse", "chat:1", "--config", "p.toml"], .answer(.refuse, requestID: "chat:1", configPath: "p.toml")),
        (["--config=p.toml", "dismiss"], .answer(.dismiss, requestID: nil, configPath: "p.toml")),
        (["stop", "--help"], .help),
        (["done", "chat_1", "--revision", "17"], .answer(.done, requestID: "chat_1", configPath: nil, revision: 17)),
        (["--revision=0", "stop", "chat_1"], .answer(.stop, requestID: "chat_1", configPath: nil, revision: 0)),
        (["status"], .status(follow: false, json: false)),
        (["status", "--follow"], .status(follow: true, json: false)),
        (["--json", "status", "--follow"], .status(follow: true, json: true)),
        (["completion", "bash"], .completion(.bash)),
        (["completion", "fish"], .completion(.fish)),
    ]

    @Test(arguments: valid)
    func parses(_ arguments: [String], _ expected: PhoneCommand) throws {
        #expect(try PhoneCommandLine.parse(arguments) == expected)
    }

    static let invalid: [([String], String)] = [
        (["--bogus"], "unknown option --bogus"),
        (["stop", "--revision"], "--revision needs a number"),
        (["stop", "--revision", "+1"], "--revision '+1' must be a task revision, a whole number"),
        (["stop", "--revision", "x"], "--revision 'x' must be a task revision, a whole number"),
        (["--revision", "3"], "--revision goes with stop, done, refuse or dismiss"),
        (
            ["stop", "--revision", "3"],
            "--revision goes with an ID (without one, the answer is for the card the client shows)"
        ),
        (["--config"], "--config needs a file"),
        (["--config", "--json"], "--config needs a file"),
        (["--config="], "--config needs a file"),
        (["--config", "a", "--config", "b"], "--config given twice"),
        (["--json", "--json"], "--json given twice"),
        (["run"], "unexpected argument 'run'"),
        (["--json=yes"], "--json takes no value"),
        (["--config=a", "--config", "b"], "--config given twice"),
        (["-v"], "unknown option -v"),
        (["doctor", "now"], "unexpected argument 'now'"),
        (["doctor", "doctor"], "unexpected argument 'doctor'"),
        (["doctor", "--config"], "--config needs a file"),
        (["stop", "a", "b"], "unexpected argument 'b'"),
        (["stop", "a/b"], "task id 'a/b' must be 1 to 128 characters from A-Z a-z 0-9 . _ : -"),
        (["done", "--json"], "done takes no --json"),
        (["cancel"], "unexpected argument 'cancel'"),
        (["status", "now"], "unexpected argument 'now'"),
        (["status", "--config", "p.toml"], "status takes no --config"),
        (["--follow"], "--follow goes with status"),
        (["doctor", "--follow"], "--follow goes with status"),
        (["status", "--follow=yes"], "--follow takes no value"),
        (["completion"], "completion needs a shell: bash, zsh or fish"),
        (["completion", "tcsh"], "completion 'tcsh' must be bash, zsh or fish"),
        (["completion", "bash", "zsh"], "unexpected argument 'zsh'"),
        (["completion", "zsh", "--json"], "completion takes no --json"),
    ]

    /// The completions offer exactly what the parser takes: every command word, every option where it goes.
    @Test func theCompletionsOfferWhatTheParserTakes() throws {
        let table = PhoneCommandLine.completions
        for command in table.commands {
            for option in command.options where option.value == .none && option.name != "help" {
                let arguments = command.words + [option.spelling]
                #expect(throws: Never.self, "\(arguments)") { try PhoneCommandLine.parse(arguments) }
            }
        }
        #expect(table.commands.map(\.path).contains("status"))
        let bash = CompletionShell.bash.script(for: table)
        #expect(bash.contains("--follow"))
        #expect(bash.contains("aiden-phone"))
    }

    @Test(arguments: invalid)
    func rejects(_ arguments: [String], _ message: String) {
        #expect(throws: PhoneUsageError(message: message)) { try PhoneCommandLine.parse(arguments) }
    }
}
