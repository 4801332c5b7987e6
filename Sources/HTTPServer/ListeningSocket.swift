import NetworkAddress
import Platform

#if canImport(Glibc)
import Glibc
#endif

/// A bound, listening socket, made here rather than by libmicrohttpd so that a bind failure names
/// the address and the errno, port 0 reports the port the kernel chose, and the agent's Unix
/// socket gets its file mode before anyone can connect.
package struct ListeningSocket: Sendable {
    package enum Kind: Sendable, Equatable {
        case tcp(SocketEndpoint)
        case unix(path: String)
    }

    package let descriptor: Int32
    /// What it is bound to; for TCP with port 0, the port the kernel assigned.
    package let kind: Kind

    /// Binds and listens on a TCP endpoint. `[::]` is dual-stack (IPV6_V6ONLY off). With `freeBind`,
    /// an address not (yet) on any interface can be bound (IP_FREEBIND): the board starts before the
    /// USB link has its address, and serves as soon as it appears.
    package static func tcp(
        _ endpoint: SocketEndpoint, backlog: Int32 = 64, freeBind: Bool = false
    )
        throws(SocketError) -> ListeningSocket
    {
        let family = endpoint.address.isIPv6 ? AF_INET6 : AF_INET
        let fd = socket(family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw SocketError(operation: "socket", address: endpoint.description, errno: errno) }
        do throws(SocketError) {
            var one: Int32 = 1
            setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
            if freeBind {
                let option = endpoint.address.isIPv6 ? Int32(IPV6_FREEBIND) : Int32(IP_FREEBIND)
                let level = endpoint.address.isIPv6 ? Int32(IPPROTO_IPV6) : Int32(IPPROTO_IP)
                setsockopt(fd, level, option, &one, socklen_t(MemoryLayout<Int32>.size))
            }
            if endpoint.address.isIPv6 {
                var off: Int32 = 0
                setsockopt(fd, Int32(IPPROTO_IPV6), IPV6_V6ONLY, &off, socklen_t(MemoryLayout<Int32>.size))
            }
            let rc = SockaddrStorage(endpoint).withSockaddr { bind(fd, $0, $1) }
            guard rc == 0 else { throw SocketError(operation: "bind", address: endpoint.description, errno: errno) }
            guard listen(fd, backlog) == 0 else {
                throw SocketError(operation: "listen", address: endpoint.description, errno: errno)
            }
            guard let bound = SockaddrStorage.localEndpoint(of: fd) else {
                throw SocketError(operation: "getsockname", address: endpoint.description, errno: errno)
            }
            return ListeningSocket(descriptor: fd, kind: .tcp(bound))
        } catch {
            close(fd)
            throw error
        }
    }

    /// Binds and listens on a Unix stream socket, replacing a stale socket file (never any other
    /// kind of file), then applies `mode` (e.g. 0o660) and, if given, the group.
    package static func unix(
        path: String, mode: mode_t, group: gid_t? = nil, backlog: Int32 = 16
    )
        throws(SocketError) -> ListeningSocket
    {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let pathBytes = Array(path.utf8)
        let capacity = MemoryLayout.size(ofValue: address.sun_path)
        guard !pathBytes.isEmpty, pathBytes.count < capacity else {
            throw SocketError(operation: "bind", address: path, errno: ENAMETOOLONG)
        }
        var status = stat()
        if lstat(path, &status) == 0 {
            guard status.st_mode & S_IFMT == S_IFSOCK else {
                throw SocketError(
                    operation: "bind", address: path, errno: EEXIST,
                    detail: "a file that is not a socket is in the way")
            }
            unlink(path)
        }
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw SocketError(operation: "socket", address: path, errno: errno) }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (index, byte) in pathBytes.enumerated() { raw[index] = byte }
        }
        let rc = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard rc == 0 else {
            let code = errno
            close(fd)
            throw SocketError(operation: "bind", address: path, errno: code)
        }
        if chmod(path, mode) != 0 {
            let code = errno
            close(fd)
            unlink(path)
            throw SocketError(operation: "chmod", address: path, errno: code)
        }
        // The socket file takes the process's group. Under its unit (Group=aiden) that is already the one
        // wanted, and the unit's seccomp filter denies the chown family (@privileged): call it only when needed.
        if let group, lstat(path, &status) == 0, status.st_gid != group, chown(path, uid_t.max, group) != 0 {
            let code = errno
            close(fd)
            unlink(path)
            throw SocketError(operation: "chown", address: path, errno: code)
        }
        guard listen(fd, backlog) == 0 else {
            let code = errno
            close(fd)
            unlink(path)
            throw SocketError(operation: "listen", address: path, errno: code)
        }
        return ListeningSocket(descriptor: fd, kind: .unix(path: path))
    }
}

/// A socket call that failed, with the address it was for and the system's reason.
package struct SocketError: Error, Equatable, Sendable, CustomStringConvertible {
    package let operation: String
    package let address: String
    package let errno: Int32
    package var detail: String?

    package init(operation: String, address: String, errno: Int32, detail: String? = nil) {
        self.operation = operation
        self.address = address
        self.errno = errno
        self.detail = detail
    }

    package var description: String {
        let reason = detail ?? String(cString: strerror(errno))
        return "\(operation) \(address): \(reason)"
    }
}
