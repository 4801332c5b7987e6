/// The last non-empty line of a stream (`task run` keeps the command's stderr's, for the failed task's
/// error), in bounded memory. A line redrawn with carriage returns (a progress bar) counts as what it
/// shows last.
package struct LastLine: Sendable {
    /// Bytes kept of one line; the rest of a longer line is dropped.
    private static let maxLineBytes = 4096

    private var current: [UInt8] = []
    private var last: [UInt8] = []

    package init() {}

    package mutating func feed(_ bytes: some Sequence<UInt8>) {
        for byte in bytes {
            switch byte {
            case UInt8(ascii: "\n"):
                endLine()
            case UInt8(ascii: "\r"):
                if !Self.isBlank(current) { last = current }
                current = []
            default:
                if current.count < Self.maxLineBytes { current.append(byte) }
            }
        }
    }

    /// The line, cleaned for the card, or nil when the stream had only blank lines.
    package var text: String? {
        let line = Self.isBlank(current) ? last : current
        let cleaned = RunText.clean(String(decoding: line, as: UTF8.self), limit: RunText.maxErrorCharacters)
        return cleaned.isEmpty ? nil : cleaned
    }

    private mutating func endLine() {
        if !Self.isBlank(current) { last = current }
        current = []
    }

    /// Nothing left once cleaned, at the length `text` cuts to (the cut is between characters, so a shorter
    /// one could leave nothing of a letter with its marks): spaces, or only escape sequences (a colour reset).
    private static func isBlank(_ line: [UInt8]) -> Bool {
        RunText.clean(String(decoding: line, as: UTF8.self), limit: RunText.maxErrorCharacters).isEmpty
    }
}
