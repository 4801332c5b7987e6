#if canImport(Glibc)
import Glibc
#endif

/// Reads single key presses from a terminal on standard input: the terminal is put in non-canonical
/// mode without echo (`ICANON`, `ECHO` off; signals such as Ctrl-C still work), each byte read is
/// delivered, and `stop()` puts the terminal back as it was. The read blocks on a thread of its own.
/// Nothing happens when standard input is not a terminal (a pipe, `/dev/null`, the journal).
package final class TerminalKeyReader: @unchecked Sendable {  // `saved` is written in start, read in restore
    private let descriptor: Int32
    private var saved: termios?
    private var thread: JoinableThread?

    package init(descriptor: Int32 = 0) {
        self.descriptor = descriptor
    }

    /// Whether the descriptor is a terminal.
    package var isTerminal: Bool { isatty(descriptor) == 1 }

    /// Starts reading; false (and nothing changed) when the descriptor is not a terminal or its mode
    /// cannot be set.
    package func start(deliver: @escaping @Sendable (UInt8) -> Void) -> Bool {
        guard isTerminal else { return false }
        var mode = termios()
        guard tcgetattr(descriptor, &mode) == 0 else { return false }
        saved = mode
        mode.c_lflag &= ~tcflag_t(ICANON | ECHO)
        withUnsafeMutableBytes(of: &mode.c_cc) { cc in
            cc[Int(VMIN)] = 1
            cc[Int(VTIME)] = 0
        }
        guard tcsetattr(descriptor, TCSANOW, &mode) == 0 else { return false }
        let descriptor = descriptor
        thread = JoinableThread.start {
            var byte: UInt8 = 0
            while true {
                let count = read(descriptor, &byte, 1)
                if count == 1 {
                    deliver(byte)
                } else if count < 0, errno == EINTR {
                    continue
                } else {
                    return  // end of input or an error: no more keys
                }
            }
        }
        return true
    }

    /// Puts the terminal back in the mode it had before `start` (the reading thread is left blocked in
    /// `read`: the process is exiting).
    package func restore() {
        guard var mode = saved else { return }
        _ = tcsetattr(descriptor, TCSANOW, &mode)
    }
}
