/// What `aiden-board` was asked to do (CONTRACT.md §7). Parsing is apart from running so it is
/// tested as a table.
package enum BoardCommand: Equatable, Sendable {
    case run(configPath: String)
    case doctor(configPath: String)
    case gadget(up: Bool, configPath: String, configfs: String?, udc: String?)
    case help(String)
    case version
}

package struct BoardUsageError: Error, Equatable, Sendable, CustomStringConvertible {
    package let message: String
    package var description: String { "aiden-board: \(message) (see aiden-board --help)" }
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
        var rest = arguments[...]
        var verb: String?
        var direction: String?
        var config = defaultConfigPath
        var configfs: String?
        var udc: String?
        var seen: Set<String> = []
        while var word = rest.popFirst() {
            // `--opt value` and `--opt=value` alike, as aiden-phone and aidenctl take them.
            var attached: String?
            if word.hasPrefix("--"), let equals = word.firstIndex(of: "=") {
                attached = String(word[word.index(after: equals)...])
                word = String(word[..<equals])
            }
            switch word {
            case "--help" where attached != nil, "--version" where attached != nil:
                throw BoardUsageError(message: "\(word) takes no value")
            case "-h", "--help":
                return .help(usage)
            case "--version":
                return .version
            case "--config", "--configfs", "--udc":
                guard seen.insert(word).inserted else { throw BoardUsageError(message: "\(word) given twice") }
                guard let value = attached ?? rest.popFirst(), !value.isEmpty, attached != nil || !value.hasPrefix("--")
                else {
                    throw BoardUsageError(message: "\(word) needs a value")
                }
                switch word {
                case "--config": config = value
                case "--configfs": configfs = value
                default: udc = value
                }
            case _ where word.hasPrefix("-"):
                throw BoardUsageError(message: "unknown option \(word)")
            case "doctor" where verb == nil, "gadget" where verb == nil:
                verb = word
            case "up" where verb == "gadget" && direction == nil, "down" where verb == "gadget" && direction == nil:
                direction = word
            default:
                throw BoardUsageError(message: "unexpected argument '\(word)'")
            }
        }
        switch verb {
        case nil:
            guard configfs == nil, udc == nil else {
                throw BoardUsageError(message: "--configfs and --udc belong to 'gadget up|down'")
            }
            return .run(configPath: config)
        case "doctor":
            guard configfs == nil, udc == nil else {
                throw BoardUsageError(message: "--configfs and --udc belong to 'gadget up|down'")
            }
            return .doctor(configPath: config)
        default:
            guard let direction else { throw BoardUsageError(message: "gadget needs 'up' or 'down'") }
            return .gadget(up: direction == "up", configPath: config, configfs: configfs, udc: udc)
        }
    }
}
