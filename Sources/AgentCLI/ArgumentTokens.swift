/// The command line split into command words, valued options and flags, before any meaning is given
/// to them. The first problem is kept, not thrown, so that `--help` still wins over a typo.
struct ArgumentTokens {
    var words: [String] = []
    var options: [(name: OptionName, value: String)] = []
    var flags: [OptionName] = []
    var problem: String?

    init(_ arguments: [String]) {
        var index = arguments.startIndex
        var onlyWords = false
        while index < arguments.endIndex {
            let argument = arguments[index]
            index += 1
            if onlyWords {
                words.append(argument)
            } else if argument == "--" {
                onlyWords = true
            } else if argument == "-h" {
                flags.append(.help)
            } else if argument.hasPrefix("--") {
                index = readOption(argument, arguments: arguments, next: index)
            } else if argument.hasPrefix("-"), argument != "-" {
                note("unknown option \(TerminalText.quoted(argument))")
            } else {
                words.append(argument)
            }
        }
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
        guard let option = OptionName(rawValue: String(name)) else {
            note("unknown option \(TerminalText.quoted("--" + name))")
            return next
        }
        guard option.takesValue else {
            if inlineValue != nil { note("option \(option.spelling) takes no value") }
            flags.append(option)
            return next
        }
        if let inlineValue {
            options.append((option, inlineValue))
            return next
        }
        // A following "--word" is taken for a forgotten value, not as the value: use --name=--word for that.
        guard next < arguments.endIndex, !arguments[next].hasPrefix("--"), arguments[next] != "-h" else {
            note("missing value for \(option.spelling)")
            return next
        }
        options.append((option, arguments[next]))
        return next + 1
    }

    private mutating func note(_ message: String) {
        if problem == nil { problem = message }
    }
}
