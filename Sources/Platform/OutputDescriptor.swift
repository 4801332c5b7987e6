#if canImport(Glibc)
import Glibc
#endif

/// A descriptor this process writes to (stdout, stderr, a pipe), by number. Each write hands over all of the
/// bytes: EINTR is retried and a non-blocking descriptor is waited for (poll), so nothing is cut short and no
/// caller loops on write(2) itself; only a reader that went away (EPIPE, with SIGPIPE ignored) or a broken
/// descriptor ends it early. Unbuffered, so nothing is lost when `CurrentProcess.exit` follows.
package struct OutputDescriptor: Sendable, Equatable {
    package let number: Int32

    package init(_ number: Int32) {
        self.number = number
    }

    package static let standardOutput = OutputDescriptor(1)
    package static let standardError = OutputDescriptor(2)

    /// Writes all of `text` as UTF-8; false when the descriptor refused it.
    @discardableResult
    package func write(_ text: String) -> Bool {
        write(Array(text.utf8)[...])
    }

    /// Writes all of `bytes`; false when the descriptor refused them (the reader went away, or it is broken).
    @discardableResult
    package func write(_ bytes: ArraySlice<UInt8>) -> Bool {
        var offset = bytes.startIndex
        while offset < bytes.endIndex {
            let written = bytes[offset...].withUnsafeBytes { Glibc.write(number, $0.baseAddress, $0.count) }
            if written > 0 {
                offset += written
            } else if written < 0 && errno == EINTR {
                continue
            } else if written < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) {
                var ready = pollfd(fd: number, events: Int16(POLLOUT), revents: 0)
                _ = poll(&ready, 1, -1)
            } else {
                return false
            }
        }
        return true
    }

    /// Whether the descriptor is a terminal.
    package var isTerminal: Bool { isatty(number) == 1 }

    /// Columns of the terminal, nil when it is not one or does not say.
    package var terminalColumns: Int? {
        var size = winsize()
        guard ioctl(number, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 else { return nil }
        return Int(size.ws_col)
    }
}
