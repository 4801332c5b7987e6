#if canImport(Glibc)
import Glibc
#endif

/// A pipe a helper thread writes one byte into to wake a thread that waits in poll(2) on its read end
/// (`DescriptorPoll`): aidenctl's signal thread and its stop watch wake `task run`'s loop this way, and the
/// phone's `LoopbackWakeSource.stop` its receiver thread. Both ends are close-on-exec (a spawned command does not
/// inherit them) and non-blocking, so waking never blocks and draining never waits. aidenctl's lives as long as
/// the process; the receiver's is closed once its thread has ended.
package struct WakePipe: Sendable {
    /// The end to poll for readability.
    package let descriptor: Int32
    private let writer: Int32

    private init(descriptor: Int32, writer: Int32) {
        self.descriptor = descriptor
        self.writer = writer
    }

    package static func make() throws(SystemCallError) -> WakePipe {
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else { throw SystemCallError(operation: "pipe", code: errno) }
        for end in ends {
            _ = fcntl(end, F_SETFD, FD_CLOEXEC)
            _ = fcntl(end, F_SETFL, fcntl(end, F_GETFL) | O_NONBLOCK)
        }
        return WakePipe(descriptor: ends[0], writer: ends[1])
    }

    /// Makes the read end readable; a full pipe is already readable, so a byte that does not fit is not missed.
    package func wake() {
        var byte: UInt8 = 1
        _ = write(writer, &byte, 1)
    }

    /// Empties the pipe (after poll said it is readable).
    package func drain() {
        var bytes = [UInt8](repeating: 0, count: 64)
        while read(descriptor, &bytes, bytes.count) > 0 {}
    }

    /// Closes both ends: for a pipe whose waker never started, or whose waiting thread has ended.
    package func close() {
        _ = Glibc.close(descriptor)
        _ = Glibc.close(writer)
    }
}
