import CommandLineSyntax

/// What `aiden-board` was asked to do (docs/protocol.md §8.1). Parsing is apart from running so it is
/// tested as a table. `explicitConfig`: `--config` was given (either spelling), so a missing file is an
/// error rather than "defaults".
package enum BoardCommand: Equatable, Sendable {
    case run(configPath: String, explicitConfig: Bool)
    /// `json`: every check as a JSON object (`doctor --json`), instead of one line each.
    case doctor(configPath: String, explicitConfig: Bool, json: Bool)
    case gadget(up: Bool, configPath: String, explicitConfig: Bool, configfs: String?, udc: String?)
    /// `aiden-board config show`: the effective configuration, as TOML, each key's file named.
    case configShow(configPath: String, explicitConfig: Bool)
    /// `aiden-board gadget status`: what the gadget is, read-only.
    case gadgetStatus(configfs: String?)
    case help(String)
    case version
}

package struct BoardUsageError: Error, Equatable, Sendable, CustomStringConvertible {
    package let message: String
    package var description: String { "aiden-board: \(message) (see aiden-board --help)" }
}

/// Every `--option` aiden-board knows.
enum BoardOption: String, CaseIterable, CommandLineOption {
    case config, configfs, udc, json, help, version

    var takesValue: Bool { self != .help && self != .version && self != .json }
}

package enum BoardCommandLine {
    package static let defaultConfigPath = "/etc/aiden/board.toml"

    package static let usage = """
        usage: aiden-board [--config FILE]            run the board daemon (default config \(defaultConfigPath))
               aiden-board doctor [--json] [--config FILE]
                                                check adapter, BlueZ, ECM link, ports; say how to fix
                                                (--json: every check as a JSON object)
               aiden-board gadget up|down [--config FILE] [--configfs DIR] [--udc NAME]
               aiden-board gadget status [--configfs DIR]
                                                what the gadget is: bound to which UDC, its interface;
                                                exit 0 when up, 3 when not, 69 without configfs
               aiden-board config show [--config FILE]
                                                the effective configuration (defaults and drop-ins in),
                                                as TOML, each key's file named in a comment
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
        let verb =
            words.first == "doctor" || words.first == "gadget" || words.first == "config" ? words.popFirst() : nil
        if verb == "config" {
            guard words.popFirst() == "show" else { throw BoardUsageError(message: "config needs 'show'") }
            if let extra = words.first { throw BoardUsageError(message: "unexpected argument '\(extra)'") }
            guard configfs == nil, udc == nil, !tokens.flags.contains(.json) else {
                throw BoardUsageError(message: "config show takes only --config")
            }
            return .configShow(configPath: configPath, explicitConfig: config != nil)
        }
        let direction =
            verb == "gadget" && (words.first == "up" || words.first == "down" || words.first == "status")
            ? words.popFirst() : nil
        if let extra = words.first { throw BoardUsageError(message: "unexpected argument '\(extra)'") }
        switch verb {
        case "gadget":
            if tokens.flags.contains(.json) { throw BoardUsageError(message: "--json belongs to 'doctor'") }
            guard let direction else { throw BoardUsageError(message: "gadget needs 'up', 'down' or 'status'") }
            if direction == "status" {
                guard config == nil, udc == nil else {
                    throw BoardUsageError(message: "gadget status takes only --configfs")
                }
                return .gadgetStatus(configfs: configfs)
            }
            return .gadget(
                up: direction == "up", configPath: configPath, explicitConfig: config != nil, configfs: configfs,
                udc: udc)
        default:
            if tokens.flags.contains(.json) && verb != "doctor" {
                throw BoardUsageError(message: "--json belongs to 'doctor'")
            }
            guard configfs == nil, udc == nil else {
                throw BoardUsageError(message: "--configfs and --udc belong to 'gadget up|down'")
            }
            return verb == "doctor"
                ? .doctor(configPath: configPath, explicitConfig: config != nil, json: tokens.flags.contains(.json))
                : .run(configPath: configPath, explicitConfig: config != nil)
        }
    }
}
