import CommandLineSyntax
import PhoneCore
import WireFormat

/// What `aiden-phone` was asked to do (docs/protocol.md §8.2). Parsing is apart from running so it is
/// tested as a table.
package enum PhoneCommand: Equatable, Sendable {
    /// `configPath`: the file `--config` named, which must exist; nil: the standard places
    /// (`PhonePaths`), where a missing file means the built-in defaults.
    case run(configPath: String?, json: Bool)
    /// `aiden-phone doctor`: check this host's side and say how to fix what is wrong (`configPath` as for
    /// `run`).
    /// `json`: every check as a JSON object (`doctor --json`), instead of one line each.
    case doctor(configPath: String?, json: Bool)
    /// `aiden-phone stop|done|refuse|dismiss [ID]`: post the person's answer once (`PhoneAnswerCommand`);
    /// `requestID` nil: the task the running client's card shows, at the revision it shows. `revision`
    /// (`--revision N`, only with an ID): the task's revision the answer is for (the board refuses it as stale if
    /// the task started again or asked again since); nil with an ID: none.
    case answer(Answer, requestID: String?, configPath: String?, revision: UInt64? = nil)
    /// `aiden-phone status [--follow] [--json]`: the running client's card as one line for a status bar
    /// (`PhoneStatusCommand`), once or one line per change; `json`: waybar's object instead of the text.
    case status(follow: Bool, json: Bool)
    /// `aiden-phone completion bash|zsh|fish`: the shell's completion script (`PhoneCommandLine.completions`).
    case completion(CompletionShell)
    case help
    case version
}

package struct PhoneUsageError: Error, Equatable, Sendable, CustomStringConvertible {
    package let message: String
    package var description: String { "aiden-phone: \(message) (see aiden-phone --help)" }
}

/// Every `--option` aiden-phone knows.
enum PhoneOption: String, CaseIterable, CommandLineOption {
    case config, json, help, version, revision, follow

    var takesValue: Bool { self == .config || self == .revision }
}

package enum PhoneCommandLine {
    package static let usage = """
        usage: aiden-phone [--config FILE] [--json]
               aiden-phone doctor [--json] [--config FILE]
               aiden-phone stop|done|refuse|dismiss [ID] [--revision N] [--config FILE]
               aiden-phone status [--follow] [--json]
               aiden-phone completion bash|zsh|fish
               aiden-phone --version | --help

        Shows the board's current task as a card and alerts once per high-value transition.
        'doctor' checks the USB link and its address, the udev rule and USB device, libusb hotplug,
        the board's /status, bluetoothd and the bond with the board, and desktop notifications; one
        line per finding with its fix (with --json: one JSON object, every check in it); exit 0 when
        nothing is wrong, 1 when something is.
        'stop', 'done', 'refuse' and 'dismiss' answer task ID (default: the task the running
        client's card shows, at the revision it shows) once, print one line, and exit 0 when the
        board recorded it, 1 when it refused (its error is printed; stale_revision when the task
        changed since it was shown), 3 when the card shows no task, 69 when the board did not answer
        or, without an ID, no running client did.
        'status' prints the running client's card as one line for a status bar (the task that needs
        you, else the one running, and how many others run and wait) and exits 0, or 69 when no client
        answers; with --follow, one more line per change (waybar, i3blocks); with --json, waybar's
        object (text, tooltip, class, percentage) instead of the text.
        'completion' prints the shell's completion script (bash, zsh or fish).
        On the card the keys are s (stop), d (done), r (refuse), x (dismiss), each confirmed with y.
        The answer is for the task's revision it was shown at (--revision with an ID; without one, the
        revision the client shows): the board refuses it (stale_revision) if the task started again or
        asked again since.

          --config FILE   the configuration; without it, as root /etc/aiden/phone.toml, otherwise
                          $XDG_CONFIG_HOME/aiden/phone.toml (~/.config/aiden/phone.toml), else
                          /etc/aiden/phone.toml; none there means the built-in defaults
          --json          one JSON event per line on stdout (card, alert, connection, wake, error)
          --revision N    with stop|done|refuse|dismiss: the task's revision the answer is for
          --follow        with status: one line per change, until stopped

        Signals: SIGTERM/SIGINT report the app "inactive" and exit; SIGUSR1 reports "foreground",
        SIGUSR2 "background". Environment: LIVE_ACTIVITY_PHONE_ID overrides [phone] id; NO_COLOR
        turns colors off. State (phone id, alert record): [state] directory, else /var/lib/aiden-phone
        as root, otherwise $XDG_STATE_HOME/aiden-phone (~/.local/state/aiden-phone).
        """

    package static func parse(_ arguments: [String]) throws(PhoneUsageError) -> PhoneCommand {
        // The same tokens as aiden-board and aidenctl: asking for help wins over any other problem.
        let tokens = ArgumentTokens<PhoneOption>(arguments)
        if tokens.wantsHelp { return .help }
        switch tokens.problem {
        case .unknownOption(let spelling): throw PhoneUsageError(message: "unknown option \(spelling)")
        case .missingValue(let option):
            throw PhoneUsageError(message: "\(option.spelling) needs \(option == .revision ? "a number" : "a file")")
        case .unexpectedValue(let option): throw PhoneUsageError(message: "\(option.spelling) takes no value")
        case nil: break
        }
        if let repeated = tokens.firstRepeated { throw PhoneUsageError(message: "\(repeated.spelling) given twice") }
        if tokens.flags.contains(.version) { return .version }
        var words = tokens.words[...]
        if words.first == "completion" {
            let shell = words.dropFirst().first
            guard let shell, let known = CompletionShell(rawValue: shell) else {
                throw PhoneUsageError(
                    message: shell.map { "completion '\($0)' must be bash, zsh or fish" }
                        ?? "completion needs a shell: bash, zsh or fish")
            }
            if let word = words.dropFirst(2).first { throw PhoneUsageError(message: "unexpected argument '\(word)'") }
            if let option = PhoneOption.allCases.first(where: { tokens.flags.contains($0) || tokens.value($0) != nil })
            {
                throw PhoneUsageError(message: "completion takes no \(option.spelling)")
            }
            return .completion(known)
        }
        if words.first == "status" {
            if let word = words.dropFirst().first { throw PhoneUsageError(message: "unexpected argument '\(word)'") }
            for option in [PhoneOption.config, .revision] where tokens.value(option) != nil {
                throw PhoneUsageError(message: "status takes no \(option.spelling)")
            }
            return .status(follow: tokens.flags.contains(.follow), json: tokens.flags.contains(.json))
        }
        if tokens.flags.contains(.follow) { throw PhoneUsageError(message: "--follow goes with status") }
        let doctor = words.first == "doctor"
        if doctor { words = words.dropFirst() }
        let config = tokens.value(.config)
        if let word = words.first, let answer = Answer(rawValue: word) {
            words = words.dropFirst()
            let id = words.popFirst()
            if let word = words.first { throw PhoneUsageError(message: "unexpected argument '\(word)'") }
            if let id, !IdentifierRule.isValid(id) {
                throw PhoneUsageError(message: "task id '\(id)' \(IdentifierRule.expectation())")
            }
            if config?.isEmpty == true { throw PhoneUsageError(message: "--config needs a file") }
            if tokens.flags.contains(.json) { throw PhoneUsageError(message: "\(answer.rawValue) takes no --json") }
            var revision: UInt64?
            if let text = tokens.value(.revision) {
                guard let number = UInt64(text), text.utf8.allSatisfy({ (0x30...0x39).contains($0) }) else {
                    throw PhoneUsageError(message: "--revision '\(text)' must be a task revision, a whole number")
                }
                revision = number
            }
            if revision != nil, id == nil {
                // Without an ID the task and its revision are the ones the running client shows: a number given
                // here could only contradict them.
                throw PhoneUsageError(
                    message: "--revision goes with an ID (without one, the answer is for the card the client shows)")
            }
            return .answer(answer, requestID: id, configPath: config, revision: revision)
        }
        if tokens.value(.revision) != nil {
            throw PhoneUsageError(message: "--revision goes with stop, done, refuse or dismiss")
        }
        if let word = words.first { throw PhoneUsageError(message: "unexpected argument '\(word)'") }
        if config?.isEmpty == true { throw PhoneUsageError(message: "--config needs a file") }
        if doctor {
            return .doctor(configPath: config, json: tokens.flags.contains(.json))
        }
        return .run(configPath: config, json: tokens.flags.contains(.json))
    }

    /// What completes aiden-phone's command line: the commands and options `parse` takes, each option only
    /// where it goes.
    package static let completions: CompletionTable = {
        typealias Command = CompletionTable.Command
        typealias Option = CompletionTable.Option
        let config = Option(name: "config", value: .file, summary: "the configuration file")
        let json = Option(name: "json", value: .none, summary: "JSON instead of text")
        let revision = Option(name: "revision", value: .text, summary: "the task revision the answer is for")
        let follow = Option(name: "follow", value: .none, summary: "one more line per change")
        let help = Option(name: "help", letter: "h", value: .none, summary: "print the usage")
        let version = Option(name: "version", value: .none, summary: "print the version")
        let answers = Answer.allCases.map { answer in
            Command(words: [answer.rawValue], summary: answer.verb + " a task", options: [revision, config, help])
        }
        return CompletionTable(
            program: "aiden-phone",
            commands: [
                Command(words: [], summary: "follow the board's tasks", options: [config, json, help, version]),
                Command(words: ["doctor"], summary: "check this host's side", options: [json, config, help]),
            ] + answers + [
                Command(words: ["status"], summary: "the card as one line for a bar", options: [follow, json, help]),
                Command(
                    words: ["completion"], summary: "a shell completion script", options: [help],
                    arguments: CompletionShell.allCases.map(\.rawValue)),
            ])
    }()
}
