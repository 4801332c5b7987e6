import CommandLineSyntax
import WireFormat

/// The valued options of one command line (each given at most once), read and checked into command fields.
struct OptionValues {
    private let values: [OptionName: String]
    private let topic: HelpTopic

    init(_ options: [(name: OptionName, value: String)], topic: HelpTopic) {
        var values: [OptionName: String] = [:]
        for (name, value) in options { values[name] = value }
        self.values = values
        self.topic = topic
    }

    func start() throws(UsageError) -> Command.Start {
        Command.Start(
            title: try required(.title), requestID: try nonEmpty(.requestID),
            phoneID: values[.phoneID], step: values[.step], phase: try phase(),
            progress: try progress())
    }

    func update() throws(UsageError) -> Command.Update {
        let update = Command.Update(
            requestID: try required(.id), step: values[.step], phase: try phase(), action: values[.action],
            target: values[.target], app: values[.app], tool: values[.tool], progress: try progress(),
            status: try updateStatus(), expectedRevision: try expectedRevision())
        let changing: [OptionName] = [.step, .phase, .action, .target, .app, .tool, .progress, .status]
        guard changing.contains(where: { values[$0] != nil }) else {
            throw UsageError(
                "nothing to update: give at least one of "
                    + changing.map(\.spelling).joined(separator: ", "), topic: topic)
        }
        return update
    }

    func end() throws(UsageError) -> Command.End {
        let requestID = try required(.id)
        guard let text = values[.status] else { throw missing(.status) }
        guard let status = TaskStatus(rawValue: text), TaskStatus.terminal.contains(status) else {
            throw UsageError(
                "--status must be completed, failed or canceled, not \(TerminalText.quoted(text))",
                topic: topic)
        }
        return Command.End(requestID: requestID, status: status, error: values[.error])
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

    private func updateStatus() throws(UsageError) -> TaskStatus? {
        guard let text = values[.status] else { return nil }
        guard let status = TaskStatus(rawValue: text), TaskStatus.active.contains(status) else {
            let hint = TaskStatus(rawValue: text)?.isTerminal == true ? " (end a task with 'aidenctl task end')" : ""
            throw UsageError(
                "--status must be needs_app or running, not \(TerminalText.quoted(text))\(hint)",
                topic: topic)
        }
        return status
    }

    private func expectedRevision() throws(UsageError) -> UInt64? {
        guard let text = values[.expectedRevision] else { return nil }
        guard !text.isEmpty, text.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }),
            let value = UInt64(text)
        else {
            throw UsageError(
                "--expected-revision must be a non-negative integer, not \(TerminalText.quoted(text))",
                topic: topic)
        }
        return value
    }
}
