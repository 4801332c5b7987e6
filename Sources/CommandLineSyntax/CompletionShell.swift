/// A shell a completion script is written for (`aidenctl completion bash|zsh|fish`).
package enum CompletionShell: String, CaseIterable, Sendable, Equatable {
    case bash, zsh, fish

    /// The script that completes `table`'s program in this shell, ending in a newline.
    package func script(for table: CompletionTable) -> String {
        let lines =
            switch self {
            case .bash: BashCompletion.lines(table)
            case .zsh: ZshCompletion.lines(table)
            case .fish: FishCompletion.lines(table)
            }
        return lines.joined(separator: "\n") + "\n"
    }

    /// `text` in single quotes, for any POSIX shell, zsh and fish alike: a `'` inside is closed, escaped and
    /// reopened in sh and zsh; fish reads `\'` inside single quotes, so it gets its own `fishQuoted`.
    static func quoted(_ text: String) -> String {
        "'" + text.replacing("'", with: #"'\''"#) + "'"
    }

    /// `text` in single quotes for fish, where only `\\` and `\'` are escapes inside them.
    static func fishQuoted(_ text: String) -> String {
        "'" + text.replacing(#"\"#, with: #"\\"#).replacing("'", with: #"\'"#) + "'"
    }

    /// The program's name as a shell function name: `_aidenctl`, `__aidenctl` (other characters become `_`).
    static func functionName(_ program: String, prefix: String) -> String {
        prefix + String(program.map { $0.isLetter || $0.isNumber ? $0 : "_" })
    }
}
