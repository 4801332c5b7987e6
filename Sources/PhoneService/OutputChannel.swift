import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// A file descriptor written whole text at a time under a lock, so lines from different threads
/// never interleave and every line is out (flushed) when `write` returns. A closed reader (EPIPE;
/// SIGPIPE is ignored by the daemon) drops the text rather than killing the client.
package final class OutputChannel: Sendable {
    package let descriptor: Int32
    private let lock = Mutex(())

    package init(descriptor: Int32) {
        self.descriptor = descriptor
    }

    package static let standardOutput = OutputChannel(descriptor: 1)
    package static let standardError = OutputChannel(descriptor: 2)

    /// Whether the descriptor is a terminal.
    package var isTerminal: Bool { isatty(descriptor) == 1 }

    /// Columns of the terminal, nil when it is not one or does not say.
    package var terminalColumns: Int? {
        var size = winsize()
        guard ioctl(descriptor, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 else { return nil }
        return Int(size.ws_col)
    }

    package func write(_ text: String) {
        let bytes = Array(text.utf8)
        lock.withLock { _ in
            var offset = 0
            while offset < bytes.count {
                let written = bytes.withUnsafeBytes { buffer in
                    Glibc.write(descriptor, buffer.baseAddress.map { $0 + offset }, buffer.count - offset)
                }
                if written > 0 {
                    offset += written
                } else if written < 0 && errno == EINTR {
                    continue
                } else {
                    return
                }
            }
        }
    }
}
