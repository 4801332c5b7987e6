#if canImport(Glibc)
import Glibc
#endif

/// What a path that should hold a daemon's Unix stream socket turns out to be, seen the way a client sees it:
/// the doctors tell "not running", "something else is in the way", "no permission" and "a stale socket" apart
/// with it, without writing a `sockaddr_un` of their own. Connects and closes at once; sends nothing.
package enum UnixSocketProbe: Equatable, Sendable {
    /// Nothing is at the path.
    case absent
    /// Something that is not a socket is at the path.
    case notASocket
    /// A listener accepted the connection.
    case answers
    /// A socket file is there but connecting failed: nobody listens (a stale socket) or this user may not use it.
    case refused(SocketError)

    /// Looks at `path` (a final symbolic link not followed) and, when it is a socket, connects to it.
    package static func probe(_ path: String) -> UnixSocketProbe {
        var status = stat()
        guard lstat(path, &status) == 0 else { return .absent }
        guard status.st_mode & S_IFMT == S_IFSOCK else { return .notASocket }
        guard let address = UnixSocketAddress(path: path) else {
            return .refused(SocketError(operation: "connect", address: path, errno: ENAMETOOLONG))
        }
        switch address.connectedStream() {
        case .success(let fd): close(fd)
        case .failure(let error): return .refused(error)
        }
        return .answers
    }
}
