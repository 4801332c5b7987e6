import Logging

/// Makes text from the daemon or the command line safe to print on one terminal line: control, separator
/// and format characters (newlines, escape sequences, bidi overrides) are shown escaped instead of acting on
/// the terminal, splitting lines or reordering them, by the rule the daemons' logs use
/// (`ControlCharacter.escaping`).
enum TerminalText {
    static func escaped(_ text: String) -> String {
        ControlCharacter.escaping(text)
    }

    /// `'text'`, escaped, for naming a user's argument in a message.
    static func quoted(_ text: String) -> String {
        "'\(escaped(text))'"
    }
}
