import CommandLineSyntax

/// Turns argv (without the program name) and the environment into an `Invocation` or a `UsageError`. All
/// validation happens here, apart from running, so a bad command line never reaches the daemon.
package enum CommandLineParser {
    package static func parse(
        _ arguments: [String], environment: [String: String] = [:]
    )
        throws(UsageError) -> Invocation
    {
        let tokens = ArgumentTokens<OptionName>(arguments)
        // Words after `--` are `task run`'s command, never command words.
        let commandWords = tokens.words.prefix(tokens.wordsBeforeSeparator ?? tokens.words.count)
        let resolved = resolve(Array(commandWords))
        if tokens.wantsHelp || resolved.isHelpCommand {
            if !tokens.wantsHelp, let problem = resolved.problem { throw UsageError(problem, topic: resolved.topic) }
            return Invocation(command: .help(resolved.topic))
        }
        if tokens.flags.contains(.version) { return Invocation(command: .version) }
        let topic = resolved.topic
        if let problem = tokens.problem { throw UsageError(describe(problem), topic: topic) }
        if let problem = resolved.problem { throw UsageError(problem, topic: topic) }
        try checkApplicable(tokens, topic: topic)
        let values = OptionValues(tokens.options, environment: environment, topic: topic)
        let socketPath =
            try values.nonEmpty(.socket) ?? environment[Invocation.socketEnvironmentVariable]
            .flatMap { $0.isEmpty ? nil : $0 } ?? Invocation.defaultSocketPath
        let json = tokens.flags.contains(.json)
        let quiet = tokens.flags.contains(.quiet)
        if json && quiet { throw UsageError("--quiet and --json do not go together", topic: topic) }
        let afterSeparator = tokens.wordsBeforeSeparator.map { Array(tokens.words.dropFirst($0)) }
        let command = try command(
            topic: topic, rest: resolved.rest, afterSeparator: afterSeparator, tokens: tokens, values: values)
        return Invocation(socketPath: socketPath, json: json, quiet: quiet, command: command)
    }

    /// What the command words name.
    private struct Resolution {
        var topic: HelpTopic
        /// The words after the command's own (task show's id).
        var rest: ArraySlice<String> = []
        var problem: String?
        /// `aidenctl help [command]`.
        var isHelpCommand = false
    }

    private static func resolve(_ words: [String]) -> Resolution {
        guard let first = words.first else { return Resolution(topic: .main, problem: "missing command") }
        if first == HelpTopic.helpWord {
            var named = resolve(Array(words.dropFirst()))
            named.isHelpCommand = true
            if words.count == 1 || named.problem?.hasPrefix("missing") == true { named.problem = nil }
            if named.problem == nil, let extra = named.rest.first {
                named.problem = "unexpected argument \(TerminalText.quoted(extra))"
            }
            return named
        }
        // The longest run of leading words that names a command (HelpTopic.words).
        var topic = HelpTopic.main
        var used = 0
        while used < words.count,
            let next = topic.subcommands.first(where: { $0.words.last == words[used] })
        {
            topic = next
            used += 1
        }
        guard used > 0 else {
            return Resolution(topic: .main, problem: "unknown command \(TerminalText.quoted(first))")
        }
        let subcommands = topic.subcommands.compactMap(\.words.last)
        guard subcommands.isEmpty else {
            let group = topic.words.joined(separator: " ")
            guard used < words.count else {
                let names = subcommands.dropLast().joined(separator: ", ") + " or " + (subcommands.last ?? "")
                return Resolution(topic: topic, problem: "missing \(group) command: \(names)")
            }
            return Resolution(
                topic: topic, problem: "unknown \(group) command \(TerminalText.quoted(words[used]))")
        }
        return Resolution(topic: topic, rest: words.dropFirst(used))
    }

    private static func describe(_ problem: ArgumentTokens<OptionName>.Problem) -> String {
        switch problem {
        case .unknownOption(let spelling): "unknown option \(TerminalText.quoted(spelling))"
        case .missingValue(let option): "missing value for \(option.spelling)"
        case .unexpectedValue(let option): "option \(option.spelling) takes no value"
        }
    }

    private static func checkApplicable(_ tokens: ArgumentTokens<OptionName>, topic: HelpTopic) throws(UsageError) {
        let accepted = OptionName.accepted(by: topic).union(OptionName.everywhere)
        var seen: Set<OptionName> = []
        for option in tokens.options.map(\.name) + tokens.flags {
            guard accepted.contains(option) else {
                let name = topic.commandLine.dropFirst("aidenctl ".count)
                throw UsageError("'\(name)' takes no option \(option.spelling)", topic: topic)
            }
            guard seen.insert(option).inserted else {
                throw UsageError("option \(option.spelling) given more than once", topic: topic)
            }
        }
    }

    private static func command(
        topic: HelpTopic, rest: ArraySlice<String>, afterSeparator: [String]?, tokens: ArgumentTokens<OptionName>,
        values: OptionValues
    )
        throws(UsageError) -> Command
    {
        if topic == .taskRun {
            if let extra = rest.first { throw unexpected(extra, topic: topic) }
            guard let command = afterSeparator, !command.isEmpty, !command[0].isEmpty else {
                throw UsageError("missing command to run: aidenctl task run --title T -- CMD [ARGS...]", topic: topic)
            }
            var start = try values.start()
            let progressFromStdout = tokens.flags.contains(.progressFromStdout)
            // Progress the command will report is worth a bar on the card from the start.
            if progressFromStdout, start.showsProgress == nil { start.showsProgress = true }
            // task run stops its command when the person asks from the phone, so the card may offer it.
            if start.canStop == nil { start.canStop = true }
            return .taskRun(Command.Run(start: start, command: command, progressFromStdout: progressFromStdout))
        }
        // Elsewhere `--` only protects an argument that starts with a dash: `task show -- -odd-id`.
        let rest = Array(rest) + (afterSeparator ?? [])
        if topic == .completion {
            let shells = CompletionShell.allCases.map(\.rawValue).joined(separator: ", ")
            guard let name = rest.first else { throw UsageError("missing shell: \(shells)", topic: topic) }
            guard let shell = CompletionShell(rawValue: name) else {
                throw UsageError("unknown shell \(TerminalText.quoted(name)) (known: \(shells))", topic: topic)
            }
            if let extra = rest.dropFirst().first { throw unexpected(extra, topic: topic) }
            return .completion(shell)
        }
        if topic == .hookCodex {
            guard let payload = rest.first else {
                throw UsageError("missing the event: Codex passes it as the last argument (JSON)", topic: topic)
            }
            if let extra = rest.dropFirst().first { throw unexpected(extra, topic: topic) }
            return .hook(Command.Hook(agent: .codex, payload: payload))
        }
        let takesID: Set<HelpTopic> = [.taskShow, .taskUpdate, .taskHeartbeat, .taskEnd, .taskWait]
        let positional = takesID.contains(topic) ? rest.first : nil
        if let extra = rest.dropFirst(positional == nil ? 0 : 1).first { throw unexpected(extra, topic: topic) }
        switch topic {
        case .taskStart: return .taskStart(try values.start())
        case .taskUpdate: return .taskUpdate(try values.update(positional: positional))
        case .taskHeartbeat: return .taskHeartbeat(requestID: try values.requestID(positional: positional))
        case .taskEnd: return .taskEnd(try values.end(positional: positional))
        case .taskShow: return .taskShow(requestID: try values.requestID(positional: positional))
        case .taskWait: return .taskWait(try values.wait(positional: positional))
        case .taskList: return .taskList
        case .events: return .events(try values.events(follow: tokens.flags.contains(.follow)))
        case .status: return .status
        case .mcp: return .mcp
        case .hookClaude:
            return .hook(
                Command.Hook(agent: .claude, timeoutSeconds: try values.timeout() ?? Command.Hook.defaultTimeoutSeconds)
            )
        case .main, .task, .taskRun, .completion, .hook, .hookCodex: return .help(topic)  // unreachable: handled above
        }
    }

    private static func unexpected(_ argument: String, topic: HelpTopic) -> UsageError {
        UsageError("unexpected argument \(TerminalText.quoted(argument))", topic: topic)
    }
}
