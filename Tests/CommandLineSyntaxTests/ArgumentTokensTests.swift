import CommandLineSyntax
import Testing

/// The one tokenizer of aiden-board, aiden-phone and aidenctl, on a small option set of its own.
@Suite struct ArgumentTokensTests {
    enum Option: String, CommandLineOption {
        case config, json, help

        var takesValue: Bool { self == .config }
    }

    typealias Tokens = ArgumentTokens<Option>

    @Test(arguments: [
        ["--config", "a.toml", "run"], ["--config=a.toml", "run"], ["run", "--config", "a.toml"],
        ["run", "--config=a.toml"],
    ])
    func bothSpellingsOfAValueAgree(_ arguments: [String]) {
        let tokens = Tokens(arguments)
        #expect(tokens.words == ["run"])
        #expect(tokens.value(.config) == "a.toml")
        #expect(tokens.problem == nil && tokens.flags.isEmpty)
    }

    @Test func flagsHelpAndTheEndOfOptions() {
        let tokens = Tokens(["--json", "-h", "--", "--config", "-x"])
        #expect(tokens.flags == [.json, .help])
        #expect(tokens.wantsHelp)
        #expect(tokens.words == ["--config", "-x"])
        #expect(tokens.problem == nil)
        #expect(Tokens(["-"]).words == ["-"])
    }

    @Test func valuesMayBeEmptyOrStartWithOneDashButNotTwo() {
        #expect(Tokens(["--config="]).value(.config) == "")
        #expect(Tokens(["--config", "-x"]).value(.config) == "-x")
        #expect(Tokens(["--config=--x"]).value(.config) == "--x")
        let forgotten = Tokens(["--config", "--json"])
        #expect(forgotten.problem == .missingValue(.config))
        #expect(forgotten.flags == [.json] && forgotten.options.isEmpty)
        #expect(Tokens(["--config", "-h"]).problem == .missingValue(.config))
        #expect(Tokens(["--config"]).problem == .missingValue(.config))
    }

    @Test func theFirstProblemIsKeptAndHelpStillSeen() {
        let tokens = Tokens(["--bogus=1", "-v", "--json=yes", "--help"])
        #expect(tokens.problem == .unknownOption("--bogus"))
        #expect(tokens.wantsHelp)
        #expect(Tokens(["-v"]).problem == .unknownOption("-v"))
        #expect(Tokens(["--json=yes"]).problem == .unexpectedValue(.json))
    }

    @Test func repeatsAreFoundInEitherSpelling() {
        #expect(Tokens(["--config=a", "--config", "b"]).firstRepeated == .config)
        #expect(Tokens(["--json", "--json"]).firstRepeated == .json)
        #expect(Tokens(["--json", "--config", "a"]).firstRepeated == nil)
        #expect(Tokens(["--config=a", "--config", "b"]).value(.config) == "a")
    }

    @Test func spellingHasTwoDashes() {
        #expect(Option.config.spelling == "--config")
    }
}
