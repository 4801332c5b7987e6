/// A command line split into words, valued options and flags before any meaning is given to them, the same
/// way for aiden-board, aiden-phone and aidenctl: `--name value` and `--name=value` alike, `-h` for `--help`
/// (and any other one-letter flag the program names), `--` ends the options. The first problem is kept, not thrown, so that `--help` still wins over a typo;
/// options given twice are left for the program to refuse (it knows whether that matters).
package struct ArgumentTokens<Option: CommandLineOption> {
    /// What is wrong with the line as tokens; each program words it in its own style.
    package enum Problem: Equatable, Sendable {
        /// An option no one knows, as typed without any `=value` (`--titel`, `-t`).
        case unknownOption(String)
        /// A valued option at the end of the line, or followed by another option.
        case missingValue(Option)
        /// A flag given `=value`.
        case unexpectedValue(Option)
    }

    package private(set) var words: [String] = []
    package private(set) var options: [(name: Option, value: String)] = []
    package private(set) var flags: [Option] = []
    package private(set) var problem: Problem?
    /// How many of `words` came before `--`, when `--` was given: what follows it can be told apart from the
    /// command words (aidenctl's `task run -- CMD`).
    package private(set) var wordsBeforeSeparator: Int?

    package init(_ arguments: [String]) {
        var index = arguments.startIndex
        var onlyWords = false
        while index < arguments.endIndex {
            let argument = arguments[index]
            index += 1
            if onlyWords {
                words.append(argument)
            } else if argument == "--" {
                onlyWords = true
                wordsBeforeSeparator = words.count
            } else if argument.count == 2, argument.hasPrefix("-"), let letter = argument.last,
                let flag = Option.flag(spelledBy: letter), !flag.takesValue
            {
                flags.append(flag)
            } else if argument.hasPrefix("--") {
                index = readOption(argument, arguments: arguments, next: index)
            } else if argument.hasPrefix("-"), argument != "-" {
                note(.unknownOption(argument))
            } else {
                words.append(argument)
            }
        }
    }

    /// Whether `--help` or `-h` was given anywhere before `--`.
    package var wantsHelp: Bool { flags.contains(.help) }

    /// The first option (valued or flag) given more than once, if any.
    package var firstRepeated: Option? {
        var seen: Set<Option> = []
        for option in options.map(\.name) + flags where !seen.insert(option).inserted { return option }
        return nil
    }

    /// The value of `option` (its first occurrence).
    package func value(_ option: Option) -> String? {
        options.first { $0.name == option }?.value
    }

    /// Reads `--name`, `--name=value` or `--name value`; returns the index after what it consumed.
    private mutating func readOption(_ argument: String, arguments: [String], next: Int) -> Int {
        let body = argument.dropFirst(2)
        let name: Substring
        let inlineValue: String?
        if let equals = body.firstIndex(of: "=") {
            name = body[..<equals]
            inlineValue = String(body[body.index(after: equals)...])
        } else {
            name = body
            inlineValue = nil
        }
        guard let option = Option(rawValue: String(name)) else {
            note(.unknownOption("--" + name))
            return next
        }
        guard option.takesValue else {
            if inlineValue != nil { note(.unexpectedValue(option)) }
            flags.append(option)
            return next
        }
        if let inlineValue {
            options.append((option, inlineValue))
            return next
        }
        // A following "--word" is taken for a forgotten value, not as the value: use --name=--word for that.
        guard next < arguments.endIndex, !arguments[next].hasPrefix("--"), !Self.isShortFlag(arguments[next]) else {
            note(.missingValue(option))
            return next
        }
        options.append((option, arguments[next]))
        return next + 1
    }

    private static func isShortFlag(_ argument: String) -> Bool {
        argument.count == 2 && argument.hasPrefix("-") && argument.last.flatMap(Option.flag(spelledBy:)) != nil
    }

    private mutating func note(_ problem: Problem) {
        if self.problem == nil { self.problem = problem }
    }
}
