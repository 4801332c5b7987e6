import CommandLineSyntax

/// What `aiden-board` was asked to do (docs/protocol.md §8.1). Parsing is apart from running so it is
/// tested as a table. `explicitConfig`: `--config` was given (either spelling), so a missing file is an
/// error rather than "defaults".
package enum BoardCommand: Equatable, Sendable {
    case run(configPath: String, explicitConfig: Bool)
    case doctor(configPath: String, explicitConfig: Bool)
    case gadget(up: Bool, configPath: String, explicitConfig: Bool, configfs: String?, udc: String?)
    case help(String)
    case version
}

package struct BoardUsageError: Error, Equatable, Sendable, CustomStringConvertible {
    package let message: String
    package var description: String { "aiden-board: \(message) (see aiden-board --help)" }
}

/// Every `--option` aiden-board knows.
enum BoardOption: String, CaseIterable, CommandLineOption {
    case config, configfs, udc, help, version

    var takesValue: Bool { self != .help && self != .version }
}

package enum BoardCommandLine {
    package static let defaultConfigPath = "/etc/aiden/board.toml"

    package static let usage = """
        usage: aiden-board [--config FILE]            run the board daemon (default config \(defaultConfigPath))
               aiden-board doctor [--config FILE]     check adapter, BlueZ, ECM link, ports; say how to fix
               aiden-board gadget up|down [--config FILE] [--configfs DIR] [--udc NAME]
               aiden-board --version | --help
        Options take their value as the next argument or after '=' (--config=FILE).
        """

    package static func parse(_ arguments: [String]) throws(BoardUsageError) -> BoardCommand {
        // The same tokens as aiden-phone and aidenctl: asking for help wins over any other problem.
        let tokens = ArgumentTokens<BoardOption>(arguments)
        if tokens.wantsHelp { return .help(usage) }
        switch tokens.problem {
        case .unknownOption(let spelling): throw BoardUsageError(message: "unknown option \(spelling)")
        case .missingValue(let option): throw BoardUsageError(message: "\(option.spelling) needs a value")
        case .unexpectedValue(let option): throw BoardUsageError(message: "\(option.spelling) takes no value")
        case nil: break
        }
        if let repeated = tokens.firstRepeated { throw BoardUsageError(message: "\(repeated.spelling) given twice") }
        if tokens.flags.contains(.version) { return .version }
        for (option, value) in tokens.options where value.isEmpty {
            throw BoardUsageError(message: "\(option.spelling) needs a value")
        }
        let config = tokens.value(.config)
        let configPath = config ?? defaultConfigPath
        let configfs = tokens.value(.configfs)
        let udc = tokens.value(.udc)

        var words = tokens.words[...]
        let verb = words.first == "doctor" || words.first == "gadget" ? words.popFirst() : nil
        let direction = verb == "gadget" && (words.first == "up" || words.first == "down") ? words.popFirst() : nil
        if let extra = words.first { throw BoardUsageError(message: "unexpected argument '\(extra)'") }
        switch verb {
        case "gadget":
            guard let direction else { throw BoardUsageError(message: "gadget needs 'up' or 'down'") }
            return .gadget(
                up: direction == "up", configPath: configPath, explicitConfig: config != nil, configfs: configfs,
                udc: udc)
        default:
            guard configfs == nil, udc == nil else {
                throw BoardUsageError(message: "--configfs and --udc belong to 'gadget up|down'")
            }
            return verb == "doctor"
                ? .doctor(configPath: configPath, explicitConfig: config != nil)
                : .run(configPath: configPath, explicitConfig: config != nil)
        }
    }
}
