import Testing

@testable import BoardService

@Suite struct BoardCommandLineTests {
    @Test(arguments: [
        ([], BoardCommand.run(configPath: "/etc/aiden/board.toml")),
        (["--config", "/tmp/b.toml"], .run(configPath: "/tmp/b.toml")),
        (["doctor"], .doctor(configPath: "/etc/aiden/board.toml")),
        (["doctor", "--config", "x.toml"], .doctor(configPath: "x.toml")),
        (["--config", "x.toml", "doctor"], .doctor(configPath: "x.toml")),
        (["gadget", "up"], .gadget(up: true, configPath: "/etc/aiden/board.toml", configfs: nil, udc: nil)),
        (
            ["gadget", "down", "--configfs", "/tmp/cfs", "--udc", "dummy_udc.0"],
            .gadget(up: false, configPath: "/etc/aiden/board.toml", configfs: "/tmp/cfs", udc: "dummy_udc.0")
        ),
        (["--version"], .version),
        (["--config=/tmp/b.toml"], .run(configPath: "/tmp/b.toml")),
        (
            ["gadget", "up", "--configfs=/tmp/cfs", "--udc=dummy_udc.0", "--config=x.toml"],
            .gadget(up: true, configPath: "x.toml", configfs: "/tmp/cfs", udc: "dummy_udc.0")
        ),
    ])
    func parses(arguments: [String], expected: BoardCommand) throws {
        #expect(try BoardCommandLine.parse(arguments) == expected)
    }

    @Test func helpWinsAnywhere() throws {
        #expect(try BoardCommandLine.parse(["doctor", "--help"]) == .help(BoardCommandLine.usage))
        #expect(try BoardCommandLine.parse(["-h"]) == .help(BoardCommandLine.usage))
    }

    @Test(arguments: [
        (["--config"], "--config needs a value"), (["--config", "a", "--config", "b"], "--config given twice"),
        (["--verbose"], "unknown option --verbose"), (["gadget"], "gadget needs 'up' or 'down'"),
        (["gadget", "sideways"], "unexpected argument 'sideways'"), (["run"], "unexpected argument 'run'"),
        (["--udc", "x"], "--configfs and --udc belong to 'gadget up|down'"),
        (["doctor", "doctor"], "unexpected argument 'doctor'"),
        (["--config="], "--config needs a value"), (["--config=a", "--config", "b"], "--config given twice"),
        (["--version=2"], "--version takes no value"), (["--verbose=1"], "unknown option --verbose"),
    ])
    func rejects(arguments: [String], message: String) {
        #expect(throws: BoardUsageError(message: message)) { try BoardCommandLine.parse(arguments) }
    }
}
