#if canImport(Glibc)
import Glibc
#endif

/// Blocks the calling thread for a while: aidenctl's loops, which run on plain threads rather than in async
/// code, wait before asking a board that could not be reached again. A signal does not cut the wait short.
package enum ThreadSleep {
    package static func sleep(for duration: Duration) {
        let (seconds, attoseconds) = max(duration, .zero).components
        var pause = timespec(tv_sec: Int(seconds), tv_nsec: Int(attoseconds / 1_000_000_000))
        var left = timespec()
        while nanosleep(&pause, &left) != 0 && errno == EINTR { pause = left }
    }
}
