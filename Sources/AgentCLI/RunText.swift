import Logging

/// Text `task run` takes from the command's output for the card (a progress step, the last line of stderr
/// as the error): one line the board accepts, whatever the command printed.
enum RunText {
    /// The board keeps steps up to 500 characters; a longer line is cut.
    static let maxStepCharacters = 500
    /// The error shown on the card: the last line of stderr, cut to one screenful.
    static let maxErrorCharacters = 500

    /// Without terminal escape sequences (colours, cursor moves) and control characters, tabs as spaces, bidi
    /// and format characters removed (`ControlCharacter.readable`: the board refuses bidi controls), trimmed, at
    /// most `limit` Unicode scalars (the board's "characters"), cut between characters.
    static func clean(_ text: String, limit: Int) -> String {
        var out = String.UnicodeScalarView()
        var scalars = text.unicodeScalars.makeIterator()
        while let scalar = scalars.next() {
            switch scalar.value {
            case 0x1B:
                skipEscapeSequence(&scalars)
            case 0x09:
                out.append(" ")
            default:
                // The rest of C0, DEL and C1 (a carriage return, a bell) would not show on a terminal either.
                if ControlCharacter(scalar) != .control { out.append(scalar) }
            }
        }
        let trimmed = ControlCharacter.readable(String(out)).trimmingSpaces
        return ControlCharacter.bounded(trimmed, limit: limit, ellipsis: "").trimmingSpaces
    }

    /// After ESC: a CSI sequence (`[` … a final byte 0x40–0x7E), an OSC string (`]` … BEL or ESC `\`), or
    /// one more character.
    private static func skipEscapeSequence(_ scalars: inout String.UnicodeScalarView.Iterator) {
        guard let introducer = scalars.next() else { return }
        switch introducer {
        case "[":
            while let scalar = scalars.next(), !(0x40...0x7E).contains(scalar.value) {}
        case "]":
            while let scalar = scalars.next() {
                if scalar.value == 0x07 { return }
                if scalar.value == 0x1B {
                    _ = scalars.next()
                    return
                }
            }
        default:
            return
        }
    }
}

extension String {
    /// Without leading and trailing spaces.
    fileprivate var trimmingSpaces: String {
        let scalars = unicodeScalars
        guard let first = scalars.firstIndex(where: { $0 != " " }),
            let last = scalars.lastIndex(where: { $0 != " " })
        else { return "" }
        return String(scalars[first...last])
    }
}
