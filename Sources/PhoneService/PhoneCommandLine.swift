/// What `aiden-phone` was asked to do (CONTRACT.md §7). Parsing is apart from running so it is
/// tested as a table.
package enum PhoneCommand: Equatable, Sendable {
    /// `explicitConfig`: `--config` was given, so a missing file is an error rather than "defaults".
    case run(configPath: String, explicitConfig: Bool, json: Bool)
    case help
    case version
}

package struct PhoneUsageError: Error, Equatable, Sendable, CustomStringConvertible {
    package let message: String
    package var description: String { "aiden-phone: \(message) (see aiden-phone --help)" }
}

package enum PhoneCommandLine {
    package static let defaultConfigPath = "/etc/aiden/phone.toml"

    package static let usage = """
        usage: aiden-phone [--config FILE] [--json]
               aiden-phone --version | --help

        Shows the board's current task as a card and alerts once per high-value transition.

          --config FILE   the configuration (default \(defaultConfigPath); a missing default
                          file means the built-in defaults)
          --json          one JSON event per line on stdout (card, alert, connection, wake, error)

        Signals: SIGTERM/SIGINT report the app "inactive" and exit; SIGUSR1 reports "foreground",
        SIGUSR2 "background". Environment: LIVE_ACTIVITY_PHONE_ID overrides [phone] id; NO_COLOR
        turns colors off.
        """

    package static func parse(_ arguments: [String]) throws(PhoneUsageError) -> PhoneCommand {
        // Asking for help wins over any other problem on the line.
        if arguments.contains(where: { $0 == "-h" || $0 == "--help" }) { return .help }
        var rest = arguments[...]
        var config: String?
        var json = false
        while let word = rest.popFirst() {
            switch word {
            case "-h", "--help":
                return .help
            case "--version":
                return .version
            case "--json":
                guard !json else { throw PhoneUsageError(message: "--json given twice") }
                json = true
            case "--config":
                guard config == nil else { throw PhoneUsageError(message: "--config given twice") }
                guard let value = rest.popFirst(), !value.isEmpty, !value.hasPrefix("-") else {
                    throw PhoneUsageError(message: "--config needs a file")
                }
                config = value
            case _ where word.hasPrefix("--config="):
                guard config == nil else { throw PhoneUsageError(message: "--config given twice") }
                let value = String(word.dropFirst("--config=".count))
                guard !value.isEmpty else { throw PhoneUsageError(message: "--config needs a file") }
                config = value
            case _ where word.hasPrefix("-"):
                throw PhoneUsageError(message: "unknown option \(word)")
            default:
                throw PhoneUsageError(message: "unexpected argument '\(word)'")
            }
        }
        return .run(configPath: config ?? defaultConfigPath, explicitConfig: config != nil, json: json)
    }
}
