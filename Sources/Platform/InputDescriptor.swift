#if canImport(Glibc)
import Glibc
#endif

/// A descriptor this process reads from (stdin, the read end of a spawned command's pipe), by number. EINTR is
/// retried; a non-blocking descriptor with nothing to read says so instead of blocking, so a poll loop can
/// read whatever is there and go back to waiting.
package struct InputDescriptor: Sendable, Equatable {
    package let number: Int32

    package init(_ number: Int32) {
        self.number = number
    }

    package static let standardInput = InputDescriptor(0)

    /// What one read gave.
    package enum Read: Equatable, Sendable {
        /// This many bytes, at the start of the buffer.
        case bytes(Int)
        /// The writer closed its end: nothing more will come.
        case end
        /// Nothing now: a non-blocking descriptor that is empty, or one that failed.
        case nothing
    }

    /// One read(2) into `buffer` (at most its count).
    package func read(into buffer: inout [UInt8]) -> Read {
        while true {
            let count = buffer.withUnsafeMutableBytes { Glibc.read(number, $0.baseAddress, $0.count) }
            if count > 0 { return .bytes(count) }
            if count == 0 { return .end }
            if errno != EINTR { return .nothing }
        }
    }

    /// Reads until the writer closes its end, a read fails, or at least `limit` bytes are in (a chunk may take
    /// it past `limit`: what is beyond is the caller's to drop).
    package func readAll(limit: Int) -> [UInt8] {
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while bytes.count < limit, case let .bytes(count) = read(into: &buffer) {
            bytes += buffer.prefix(count)
        }
        return bytes
    }

    /// Closes the descriptor (a command's output that no one will read any more).
    package func close() {
        _ = Glibc.close(number)
    }
}
