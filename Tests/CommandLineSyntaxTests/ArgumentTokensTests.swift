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

    /// A program may name more one-letter flags than `-h`; they are flags like their long spelling.
    enum Quiet: String, CommandLineOption {
        case quiet, help, config

        var takesValue: Bool { self == .config }

        static func flag(spelledBy letter: Character) -> Quiet? {
            switch letter {
            case "q": .quiet
            case "h": .help
            case "c": .config  // a valued option cannot be spelled short: ignored
            default: nil
            }
        }
    }

    @Test func oneLetterFlagsTheProgramNames() {
        let tokens = ArgumentTokens<Quiet>(["-q", "run", "-h"])
        #expect(tokens.flags == [.quiet, .help])
        #expect(tokens.words == ["run"])
        #expect(ArgumentTokens<Quiet>(["-c", "x"]).problem == .unknownOption("-c"))
        #expect(ArgumentTokens<Quiet>(["--config", "-q"]).problem == .missingValue(.config))
        #expect(Tokens(["-q"]).problem == .unknownOption("-q"), "only the flags a program names")
    }

    @Test func wordsAfterTheSeparatorAreToldApart() {
        let tokens = Tokens(["task", "run", "--json", "--", "ls", "--json", "-h"])
        #expect(tokens.words == ["task", "run", "ls", "--json", "-h"])
        #expect(tokens.wordsBeforeSeparator == 2)
        #expect(tokens.flags == [.json])
        #expect(!tokens.wantsHelp)
        #expect(Tokens(["task", "run"]).wordsBeforeSeparator == nil)
        #expect(Tokens(["--"]).wordsBeforeSeparator == 0)
    }

    @Test func spellingHasTwoDashes() {
        #expect(Option.config.spelling == "--config")
    }
}
