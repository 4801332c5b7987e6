import CommandLineSyntax

extension CompletionTable {
    /// aidenctl's commands and options as the parser reads them: `HelpTopic`'s words and summaries,
    /// `OptionName.all(of:)` and the value sets `OptionValues` accepts, and `help` before a command.
    package static let aidenctl: CompletionTable = {
        let topics = HelpTopic.allCases.map { topic in
            Command(
                words: topic.words, summary: topic.summary,
                options: OptionName.all(of: topic).map { option($0, in: topic) },
                arguments: topic == .completion ? CompletionShell.allCases.map(\.rawValue) : [],
                runsCommand: topic == .taskRun)
        }
        let help = Command(
            words: [HelpTopic.helpWord], summary: HelpTopic.helpSummary,
            options: OptionName.allCases.filter(OptionName.everywhere.contains).map { option($0, in: .main) },
            arguments: HelpTopic.main.subcommands.compactMap(\.words.last))
        return CompletionTable(program: "aidenctl", commands: topics + [help])
    }()

    private static func option(_ name: OptionName, in topic: HelpTopic) -> Option {
        Option(
            name: name.rawValue, letter: "abcdefghijklmnopqrstuvwxyz".first { OptionName.flag(spelledBy: $0) == name },
            value: name.completionValue(in: topic), summary: name.summary)
    }
}
