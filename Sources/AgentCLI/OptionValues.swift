import CommandLineSyntax
import WireFormat

/// The valued options of one command line (each given at most once) and the environment, read and checked
/// into command fields.
struct OptionValues {
    private let values: [OptionName: String]
    private let environment: [String: String]
    private let topic: HelpTopic

    init(_ options: [(name: OptionName, value: String)], environment: [String: String], topic: HelpTopic) {
        var values: [OptionName: String] = [:]
        for (name, value) in options { values[name] = value }
        self.values = values
        self.environment = environment
        self.topic = topic
    }

    func start() throws(UsageError) -> Command.Start {
        var start = Command.Start(
            title: try required(.title), requestID: try nonEmpty(.requestID),
            phoneID: values[.phoneID], step: values[.step], phase: try phase(),
            progress: try progress(), status: try activeStatus(), action: values[.action], target: values[.target],
            app: values[.app], tool: values[.tool], error: values[.error],
            showsProgress: try flag(.showsProgress), canStop: try flag(.canStop), requiresApp: try flag(.requiresApp),
            staleAfterSeconds: try seconds(.staleAfter), abandonAfterSeconds: try seconds(.abandonAfter),
            idempotencyKey: try idempotencyKey())
        start.toolStatus = values[.toolStatus]
        start.locale = values[.locale]
        return start
    }

    func update(positional: String?) throws(UsageError) -> Command.Update {
        var update = Command.Update(
            requestID: try requestID(positional: positional), step: values[.step], phase: try phase(),
            action: values[.action], target: values[.target], app: values[.app], tool: values[.tool],
            progress: try progress(), status: try activeStatus(), expectedRevision: try expectedRevision(),
            title: try nonEmpty(.title), phoneID: values[.phoneID], error: values[.error],
            showsProgress: try flag(.showsProgress), canStop: try flag(.canStop), requiresApp: try flag(.requiresApp),
            staleAfterSeconds: try seconds(.staleAfter), abandonAfterSeconds: try seconds(.abandonAfter),
            idempotencyKey: try idempotencyKey())
        update.toolStatus = values[.toolStatus]
        update.locale = values[.locale]
        let changing = OptionName.updateFields
        guard changing.contains(where: { values[$0] != nil }) else {
            throw UsageError(
                "nothing to update: give at least one of "
                    + changing.map(\.spelling).joined(separator: ", "), topic: topic)
        }
        return update
    }

    func end(positional: String?) throws(UsageError) -> Command.End {
        let requestID = try requestID(positional: positional)
        guard let text = values[.status] else { throw missing(.status) }
        guard let status = TaskStatus(rawValue: text), TaskStatus.terminal.contains(status) else {
            throw UsageError(
                "--status must be completed, failed or canceled, not \(TerminalText.quoted(text))",
                topic: topic)
        }
        return Command.End(
            requestID: requestID, status: status, error: values[.error], dismissAfterSeconds: try dismissal(),
            expectedRevision: try expectedRevision(), idempotencyKey: try idempotencyKey())
    }

    /// `--dismiss immediate|default|after:SECONDS`: 0, nil (the board's retention), or the seconds. The upper
    /// bound is the daemon's to check (a 400 names it).
    private func dismissal() throws(UsageError) -> UInt64? {
        guard let text = values[.dismiss] else { return nil }
        switch text {
        case "immediate": return 0
        case "default": return nil
        default:
            guard text.hasPrefix("after:"), let seconds = Self.unsigned(String(text.dropFirst("after:".count))) else {
                throw UsageError(
                    "--dismiss must be immediate, default or after:SECONDS, not \(TerminalText.quoted(text))",
                    topic: topic)
            }
            return seconds
        }
    }

    func events(follow: Bool) throws(UsageError) -> Command.Events {
        guard let text = values[.since] else { return Command.Events(follow: follow) }
        guard let since = Self.unsigned(text) else {
            throw UsageError("--since must be a non-negative integer, not \(TerminalText.quoted(text))", topic: topic)
        }
        return Command.Events(since: since, follow: follow)
    }

    /// `task wait`: `--for stop|answer|end` (required) and `--timeout SECONDS` (whole seconds, at least 1).
    func wait(positional: String?) throws(UsageError) -> Command.Wait {
        let requestID = try requestID(positional: positional)
        let names = WaitTarget.allCases.map(\.rawValue).joined(separator: ", ")
        guard let text = values[.waitFor] else {
            throw UsageError("missing required option --for (one of \(names))", topic: topic)
        }
        guard let target = WaitTarget(rawValue: text) else {
            throw UsageError("--for must be one of \(names), not \(TerminalText.quoted(text))", topic: topic)
        }
        return Command.Wait(requestID: requestID, target: target, timeoutSeconds: try timeout())
    }

    /// `--timeout SECONDS`: whole seconds, at least 1; nil when not given.
    func timeout() throws(UsageError) -> UInt64? {
        guard let text = values[.timeout] else { return nil }
        guard let seconds = Self.unsigned(text), seconds > 0 else {
            throw UsageError(
                "--timeout must be a whole number of seconds, at least 1, not \(TerminalText.quoted(text))",
                topic: topic)
        }
        return seconds
    }

    /// The task a command names: as an argument (`task update R`), with `--id R`, or `$AIDEN_TASK_ID`.
    func requestID(positional: String?) throws(UsageError) -> String {
        if let positional {
            guard values[.id] == nil else {
                throw UsageError("request id given twice: as an argument and with --id", topic: topic)
            }
            guard !positional.isEmpty else { throw UsageError("request id must not be empty", topic: topic) }
            return positional
        }
        if let option = try nonEmpty(.id) { return option }
        if let variable = environment[Invocation.taskIDEnvironmentVariable], !variable.isEmpty { return variable }
        let name = topic.commandLine
        throw UsageError(
            "missing request id: \(name) R, \(name) --id R, or $\(Invocation.taskIDEnvironmentVariable)",
            topic: topic)
    }

    /// The value if given; an empty value is an error (an empty id or path is never meant).
    func nonEmpty(_ option: OptionName) throws(UsageError) -> String? {
        guard let value = values[option] else { return nil }
        guard !value.isEmpty else { throw UsageError("\(option.spelling) must not be empty", topic: topic) }
        return value
    }

    private func required(_ option: OptionName) throws(UsageError) -> String {
        guard let value = try nonEmpty(option) else { throw missing(option) }
        return value
    }

    private func missing(_ option: OptionName) -> UsageError {
        UsageError("missing required option \(option.spelling)", topic: topic)
    }

    /// `--idempotency-key`, else `$AIDEN_IDEMPOTENCY_KEY`; the daemon checks the characters.
    private func idempotencyKey() throws(UsageError) -> String? {
        if let key = try nonEmpty(.idempotencyKey) { return key }
        return environment[Invocation.idempotencyKeyEnvironmentVariable].flatMap { $0.isEmpty ? nil : $0 }
    }

    private func phase() throws(UsageError) -> TaskPhase? {
        guard let text = values[.phase] else { return nil }
        guard let phase = TaskPhase(rawValue: text) else {
            let names = TaskPhase.allCases.map(\.rawValue)
            throw UsageError(
                "--phase must be \(names.dropLast().joined(separator: ", ")) or \(names.last ?? ""), "
                    + "not \(TerminalText.quoted(text))", topic: topic)
        }
        return phase
    }

    private func progress() throws(UsageError) -> Double? {
        guard let text = values[.progress] else { return nil }
        guard let value = Double(text), value.isFinite, value >= 0, value <= 1 else {
            throw UsageError(
                "--progress must be a number from 0 to 1, not \(TerminalText.quoted(text))",
                topic: topic)
        }
        return value == 0 ? 0 : value  // no "-0" on the wire
    }

    /// `true` or `false`, for `--shows-progress`, `--can-stop` and `--requires-app`.
    private func flag(_ option: OptionName) throws(UsageError) -> Bool? {
        guard let text = values[option] else { return nil }
        switch text {
        case "true": return true
        case "false": return false
        default:
            throw UsageError("\(option.spelling) must be true or false, not \(TerminalText.quoted(text))", topic: topic)
        }
    }

    /// A start's or an update's `--status`: the active statuses only.
    private func activeStatus() throws(UsageError) -> TaskStatus? {
        guard let text = values[.status] else { return nil }
        guard let status = TaskStatus(rawValue: text), TaskStatus.active.contains(status) else {
            let hint = TaskStatus(rawValue: text)?.isTerminal == true ? " (end a task with 'aidenctl task end')" : ""
            throw UsageError(
                "--status must be needs_app or running, not \(TerminalText.quoted(text))\(hint)",
                topic: topic)
        }
        return status
    }

    /// `--stale-after` and `--abandon-after`: whole seconds. Their ranges are the daemon's to check (a 400
    /// names the limit), so they are written down in one place.
    private func seconds(_ option: OptionName) throws(UsageError) -> UInt64? {
        guard let text = values[option] else { return nil }
        guard let value = Self.unsigned(text) else {
            throw UsageError(
                "\(option.spelling) must be a whole number of seconds, not \(TerminalText.quoted(text))", topic: topic)
        }
        return value
    }

    private func expectedRevision() throws(UsageError) -> UInt64? {
        guard let text = values[.expectedRevision] else { return nil }
        guard let value = Self.unsigned(text) else {
            throw UsageError(
                "--expected-revision must be a non-negative integer, not \(TerminalText.quoted(text))",
                topic: topic)
        }
        return value
    }

    /// Decimal digits only: no sign, no spaces, no overflow.
    private static func unsigned(_ text: String) -> UInt64? {
        guard !text.isEmpty, text.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) else {
            return nil
        }
        return UInt64(text)
    }
}
