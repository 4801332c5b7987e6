/// An option a program knows, by its name without the dashes (`config` for `--config`), and whether it
/// takes a value. Each program lists its own options as an enum conforming to this.
package protocol CommandLineOption: RawRepresentable, Hashable, Sendable where RawValue == String {
    /// Whether the option takes a value (`--config FILE`) or is a flag (`--json`).
    var takesValue: Bool { get }

    /// The help flag, which `-h` also spells.
    static var help: Self { get }

    /// The flag a one-letter `-x` spells, if any; by default only `-h`, for `help`.
    static func flag(spelledBy letter: Character) -> Self?
}

extension CommandLineOption {
    package static func flag(spelledBy letter: Character) -> Self? {
        letter == "h" ? .help : nil
    }

    /// The option as typed: `--config`.
    package var spelling: String { "--" + rawValue }
}
