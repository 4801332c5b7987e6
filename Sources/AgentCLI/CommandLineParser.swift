import CommandLineSyntax

/// Turns argv (without the program name) into an `Invocation` or a `UsageError`. All validation happens
/// here, apart from running, so a bad command line never reaches the daemon.
package enum CommandLineParser {
    package static func parse(
        _ arguments: [String], environment: [String: String] = [:]
    )
        throws(UsageError) -> Invocation
    {
        let tokens = ArgumentTokens<OptionName>(arguments)
        let resolved = resolve(tokens.words)
        if tokens.wantsHelp {
            return Invocation(socketPath: Invocation.defaultSocketPath, json: false, command: .help(resolved.topic))
        }
        let topic = resolved.topic
        if let problem = tokens.problem { throw UsageError(describe(problem), topic: topic) }
        if let problem = resolved.problem { throw UsageError(problem, topic: topic) }
        try checkApplicable(tokens, topic: topic)
        let values = OptionValues(tokens.options, topic: topic)
        let socketPath =
            try values.nonEmpty(.socket) ?? environment[Invocation.socketEnvironmentVariable]
            .flatMap { $0.isEmpty ? nil : $0 } ?? Invocation.defaultSocketPath
        let command = try command(topic: topic, rest: resolved.rest, values: values)
        return Invocation(socketPath: socketPath, json: tokens.flags.contains(.json), command: command)
    }

    /// The command the words name, the words left over (task show's id), and what is wrong with them.
    private static func resolve(_ words: [String]) -> (topic: HelpTopic, rest: ArraySlice<String>, problem: String?) {
        guard let first = words.first else { return (.main, [], "missing command") }
        switch first {
        case "status":
            return (.status, words.dropFirst(), nil)
        case "task":
            guard words.count > 1 else { return (.task, [], "missing task command: start, update, end, list or show") }
            let topic: HelpTopic? =
                switch words[1] {
                case "start": .taskStart
                case "update": .taskUpdate
                case "end": .taskEnd
                case "list": .taskList
                case "show": .taskShow
                default: nil
                }
            guard let topic else { return (.task, [], "unknown task command \(TerminalText.quoted(words[1]))") }
            return (topic, words.dropFirst(2), nil)
        default:
            return (.main, [], "unknown command \(TerminalText.quoted(first))")
        }
    }

    private static func describe(_ problem: ArgumentTokens<OptionName>.Problem) -> String {
        switch problem {
        case .unknownOption(let spelling): "unknown option \(TerminalText.quoted(spelling))"
        case .missingValue(let option): "missing value for \(option.spelling)"
        case .unexpectedValue(let option): "option \(option.spelling) takes no value"
        }
    }

    private static func checkApplicable(_ tokens: ArgumentTokens<OptionName>, topic: HelpTopic) throws(UsageError) {
        let accepted = OptionName.accepted(by: topic)
        var seen: Set<OptionName> = []
        for (option, _) in tokens.options {
            guard option == .socket || accepted.contains(option) else {
                let name = topic.commandLine.dropFirst("aidenctl ".count)
                throw UsageError("'\(name)' takes no option \(option.spelling)", topic: topic)
            }
            guard seen.insert(option).inserted else {
                throw UsageError("option \(option.spelling) given more than once", topic: topic)
            }
        }
        for flag in tokens.flags where !seen.insert(flag).inserted {
            throw UsageError("option \(flag.spelling) given more than once", topic: topic)
        }
    }

    private static func command(
        topic: HelpTopic, rest: ArraySlice<String>, values: OptionValues
    )
        throws(UsageError) -> Command
    {
        if topic == .taskShow {
            guard let requestID = rest.first else {
                throw UsageError("missing request id: aidenctl task show R", topic: topic)
            }
            guard !requestID.isEmpty else { throw UsageError("request id must not be empty", topic: topic) }
            if rest.count > 1 { throw unexpected(rest[rest.startIndex + 1], topic: topic) }
            return .taskShow(requestID: requestID)
        }
        if let extra = rest.first { throw unexpected(extra, topic: topic) }
        switch topic {
        case .taskStart: return .taskStart(try values.start())
        case .taskUpdate: return .taskUpdate(try values.update())
        case .taskEnd: return .taskEnd(try values.end())
        case .taskList: return .taskList
        case .status: return .status
        case .main, .task, .taskShow: return .help(topic)  // unreachable: resolve() reported a problem
        }
    }

    private static func unexpected(_ argument: String, topic: HelpTopic) -> UsageError {
        UsageError("unexpected argument \(TerminalText.quoted(argument))", topic: topic)
    }
}
