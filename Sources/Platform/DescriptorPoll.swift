#if canImport(Glibc)
import Glibc
#endif

/// poll(2) for readability on a few descriptors at once: `task run`'s one thread waits here for the command's
/// output, its signal thread's and its stop watch's wakes, and its own timeout, all together; the phone's loopback
/// Wake receiver for a datagram or its stop.
package enum DescriptorPoll {
    /// Waits until one of `descriptors` is readable, has hung up or failed, or `timeoutMilliseconds` pass (-1:
    /// no limit). A nil entry is not watched (and is never ready). The answer has one flag per entry, in order.
    package static func waitForReadable(_ descriptors: [Int32?], timeoutMilliseconds: Int32) -> [Bool] {
        var entries = descriptors.map { pollfd(fd: $0 ?? -1, events: Int16(POLLIN), revents: 0) }
        _ = poll(&entries, nfds_t(entries.count), timeoutMilliseconds)
        return entries.map { $0.fd >= 0 && $0.revents != 0 }
    }
}
