/// What a program's command line accepts, as its shell completions need it: the commands (by the words that
/// name them), the options each takes and the values those can have. A program builds it from the tables its
/// parser reads, so a completion never offers what the parser refuses, and `CompletionShell` turns it into
/// a bash, zsh or fish script.
package struct CompletionTable: Equatable, Sendable {
    /// The program's name as typed: `aidenctl`.
    package var program: String
    /// Every command, groups (`task`) included; the program itself is the one with no words.
    package var commands: [Command]

    package init(program: String, commands: [Command]) {
        self.program = program
        self.commands = commands
    }

    /// A command: its words after the program's name, what it does, the options it takes, and the words that may
    /// follow it (`completion bash|zsh|fish`).
    package struct Command: Equatable, Sendable {
        package var words: [String]
        package var summary: String
        package var options: [Option]
        package var arguments: [String]
        /// Whether what follows `--` is a command line of its own (`task run -- CMD`).
        package var runsCommand: Bool

        package init(
            words: [String], summary: String, options: [Option], arguments: [String] = [], runsCommand: Bool = false
        ) {
            self.words = words
            self.summary = summary
            self.options = options
            self.arguments = arguments
            self.runsCommand = runsCommand
        }

        /// The words joined by spaces: `task start`; empty for the program itself.
        package var path: String { words.joined(separator: " ") }
    }

    /// An option: its name without dashes, the one letter that also spells it (if any), its value and what it
    /// does (one line, for zsh's and fish's descriptions).
    package struct Option: Equatable, Sendable {
        package var name: String
        package var letter: Character?
        package var value: Value
        package var summary: String

        package init(name: String, letter: Character? = nil, value: Value, summary: String) {
            self.name = name
            self.letter = letter
            self.value = value
            self.summary = summary
        }

        package var spelling: String { "--" + name }
    }

    /// What follows an option.
    package enum Value: Equatable, Sendable {
        /// Nothing: a flag.
        case none
        /// Free text: nothing to offer.
        case text
        /// A path.
        case file
        /// One of these words.
        case choices([String])
    }

    /// The commands one word below `command`, in table order.
    package func subcommands(of command: Command) -> [Command] {
        commands.filter { $0.words.count == command.words.count + 1 && Array($0.words.dropLast()) == command.words }
    }

    /// The spellings of every option that takes a value, in any command, sorted: the words whose next word a
    /// completion skips as their value (the tokenizer reads options the same way for every command).
    package var valuedSpellings: [String] {
        var seen: Set<String> = []
        for command in commands {
            for option in command.options where option.value != .none { seen.insert(option.spelling) }
        }
        return seen.sorted()
    }
}

extension CompletionTable {
    /// The valued options of every command, keyed `path/--spelling` (`task end/--status`) and grouped by what
    /// completes their value: one group per set of choices (in table order), the paths, the free text.
    struct ValueArms {
        var choices: [(choices: [String], keys: [String])] = []
        var files: [String] = []
        var texts: [String] = []
    }

    func valueArms(quote: (String) -> String) -> ValueArms {
        var arms = ValueArms()
        for command in commands {
            for option in command.options {
                let key = quote(command.path + "/" + option.spelling)
                switch option.value {
                case .none: continue
                case .text: arms.texts.append(key)
                case .file: arms.files.append(key)
                case let .choices(choices):
                    if let index = arms.choices.firstIndex(where: { $0.choices == choices }) {
                        arms.choices[index].keys.append(key)
                    } else {
                        arms.choices.append((choices, [key]))
                    }
                }
            }
        }
        return arms
    }
}
