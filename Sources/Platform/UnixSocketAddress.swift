#if canImport(Glibc)
import Glibc
#endif

/// A Unix socket's path as the kernel's `sockaddr_un`, for the shells that bind or connect one (the agent
/// socket's listener, `UnixSocketProbe`, `HTTPClient`): one place that knows `sun_path` holds 107 bytes and a NUL, so a
/// path that does not fit is refused rather than cut to another path.
package struct UnixSocketAddress {
    private var address = sockaddr_un()
    private let path: String

    /// Nil when `path` is empty or too long for `sun_path`.
    package init?(path: String) {
        self.path = path
        let bytes = Array(path.utf8)
        guard !bytes.isEmpty, bytes.count < MemoryLayout.size(ofValue: address.sun_path) else { return nil }
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (index, byte) in bytes.enumerated() { raw[index] = byte }
        }
    }

    /// A new stream socket (close-on-exec) connected to the address, for a client's one exchange; the caller
    /// closes it.
    package func connectedStream() -> Result<Int32, SocketError> {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return .failure(SocketError(operation: "socket", address: path, errno: errno)) }
        guard withSockaddr({ connect(fd, $0, $1) }) == 0 else {
            let error = SocketError(operation: "connect", address: path, errno: errno)
            close(fd)
            return .failure(error)
        }
        return .success(fd)
    }

    /// Calls `body` with the address and its length, for bind(2) or connect(2).
    package func withSockaddr<R>(_ body: (UnsafePointer<sockaddr>, socklen_t) -> R) -> R {
        withUnsafePointer(to: address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                body($0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
    }
}
