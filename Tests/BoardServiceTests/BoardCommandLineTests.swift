import Testing

@testable import BoardService

@Suite struct BoardCommandLineTests {
    @Test(arguments: [
        ([], BoardCommand.run(configPath: "/etc/aiden/board.toml", explicitConfig: false)),
        (["--config", "/tmp/b.toml"], .run(configPath: "/tmp/b.toml", explicitConfig: true)),
        (["doctor"], .doctor(configPath: "/etc/aiden/board.toml", explicitConfig: false, json: false)),
        (["doctor", "--config", "x.toml"], .doctor(configPath: "x.toml", explicitConfig: true, json: false)),
        (["--config", "x.toml", "doctor"], .doctor(configPath: "x.toml", explicitConfig: true, json: false)),
        (
            ["gadget", "up"],
            .gadget(up: true, configPath: "/etc/aiden/board.toml", explicitConfig: false, configfs: nil, udc: nil)
        ),
        (
            ["gadget", "down", "--configfs", "/tmp/cfs", "--udc", "dummy_udc.0"],
            .gadget(
                up: false, configPath: "/etc/aiden/board.toml", explicitConfig: false, configfs: "/tmp/cfs",
                udc: "dummy_udc.0")
        ),
        (["--version"], .version),
        // `--config=FILE` is as explicit as `--config FILE`: a missing file is then an error, not "defaults".
        (["--config=/tmp/b.toml"], .run(configPath: "/tmp/b.toml", explicitConfig: true)),
        (["doctor", "--config=x.toml"], .doctor(configPath: "x.toml", explicitConfig: true, json: false)),
        (
            ["gadget", "up", "--configfs=/tmp/cfs", "--udc=dummy_udc.0", "--config=x.toml"],
            .gadget(up: true, configPath: "x.toml", explicitConfig: true, configfs: "/tmp/cfs", udc: "dummy_udc.0")
        ),
        (["--", "doctor"], .doctor(configPath: "/etc/aiden/board.toml", explicitConfig: false, json: false)),
        (["gadget", "status"], .gadgetStatus(configfs: nil)),
        (["config", "show"], .configShow(configPath: "/etc/aiden/board.toml", explicitConfig: false)),
        (["config", "show", "--config", "x.toml"], .configShow(configPath: "x.toml", explicitConfig: true)),
        (["gadget", "status", "--configfs", "/cfg"], .gadgetStatus(configfs: "/cfg")),
        (["doctor", "--json"], .doctor(configPath: "/etc/aiden/board.toml", explicitConfig: false, json: true)),
        (["--json", "doctor", "--config", "x.toml"], .doctor(configPath: "x.toml", explicitConfig: true, json: true)),
    ])
    func parses(arguments: [String], expected: BoardCommand) throws {
        #expect(try BoardCommandLine.parse(arguments) == expected)
    }

    @Test func helpWinsAnywhere() throws {
        #expect(try BoardCommandLine.parse(["doctor", "--help"]) == .help(BoardCommandLine.usage))
        #expect(try BoardCommandLine.parse(["-h"]) == .help(BoardCommandLine.usage))
        #expect(try BoardCommandLine.parse(["--bogus", "gadget", "--help"]) == .help(BoardCommandLine.usage))
    }

    @Test(arguments: [
        (["--config"], "--config needs a value"), (["--config", "a", "--config", "b"], "--config given twice"),
        (["--verbose"], "unknown option --verbose"), (["gadget"], "gadget needs 'up', 'down' or 'status'"),
        (["config"], "config needs 'show'"), (["config", "show", "now"], "unexpected argument 'now'"),
        (["config", "show", "--json"], "config show takes only --config"),
        (["gadget", "status", "--udc", "a.0"], "gadget status takes only --configfs"),
        (["gadget", "status", "--config", "x.toml"], "gadget status takes only --configfs"),
        (["gadget", "sideways"], "unexpected argument 'sideways'"), (["run"], "unexpected argument 'run'"),
        (["--udc", "x"], "--configfs and --udc belong to 'gadget up|down'"),
        (["doctor", "doctor"], "unexpected argument 'doctor'"),
        (["--json"], "--json belongs to 'doctor'"),
        (["gadget", "up", "--json"], "--json belongs to 'doctor'"),
        (["doctor", "--json=yes"], "--json takes no value"),
        (["--config="], "--config needs a value"), (["--config=a", "--config", "b"], "--config given twice"),
        (["--version=2"], "--version takes no value"), (["--verbose=1"], "unknown option --verbose"),
        (["--config", "--udc", "x"], "--config needs a value"), (["-v"], "unknown option -v"),
        (["--config", ""], "--config needs a value"), (["--version", "--version"], "--version given twice"),
    ])
    func rejects(arguments: [String], message: String) {
        #expect(throws: BoardUsageError(message: message)) { try BoardCommandLine.parse(arguments) }
    }
}
