import NetworkAddress
import Platform

#if canImport(Glibc)
import Glibc
#endif

/// A bound, listening socket, made here (not by the server's loop) so that a bind failure names
/// the address and the errno, port 0 reports the port the kernel chose, and the agent's Unix
/// socket gets its file mode before anyone can connect; or one the service manager made and passed
/// (socket activation, `inherited`). TCP listeners ask the kernel to record each connection's arrival
/// interface (`IP_PKTINFO`, `IPV6_RECVPKTINFO`), which `HTTPServerAdmission.refuseConnection` is given.
package struct ListeningSocket: Sendable {
    package enum Kind: Sendable, Equatable {
        case tcp(SocketEndpoint)
        case unix(path: String)
    }

    package let descriptor: Int32
    /// What it is bound to; for TCP with port 0, the port the kernel assigned.
    package let kind: Kind

    /// Closes the socket: for a caller that gives up before a server took it (the server closes its own).
    package func close() {
        _ = Glibc.close(descriptor)
    }

    /// Closes a descriptor the service manager passed that will not be served (not a listener, or one no
    /// endpoint names), so the port is not held open by nobody.
    package static func close(inherited descriptor: Int32) {
        _ = Glibc.close(descriptor)
    }

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
            recordArrivalInterface(fd, isIPv6: endpoint.address.isIPv6)
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
            Glibc.close(fd)
            throw error
        }
    }

    /// A socket the service manager bound and passed (`Systemd.listenDescriptors()`): it must be a listening
    /// stream socket; what it is bound to is asked, not assumed. It is marked close-on-exec (systemd passes it
    /// without), and a TCP one records arrival interfaces as one bound here does.
    package static func inherited(_ fd: Int32) throws(SocketError) -> ListeningSocket {
        let name = "inherited descriptor \(fd)"
        var value: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        guard getsockopt(fd, SOL_SOCKET, SO_TYPE, &value, &length) == 0 else {
            throw SocketError(operation: "getsockopt", address: name, errno: errno)
        }
        guard value == Int32(SOCK_STREAM.rawValue) else {
            throw SocketError(operation: "inherit", address: name, errno: EINVAL, detail: "not a stream socket")
        }
        length = socklen_t(MemoryLayout<Int32>.size)
        guard getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &value, &length) == 0, value == 1 else {
            throw SocketError(operation: "inherit", address: name, errno: EINVAL, detail: "not a listening socket")
        }
        _ = fcntl(fd, F_SETFD, fcntl(fd, F_GETFD) | FD_CLOEXEC)
        if let bound = SockaddrStorage.localEndpoint(of: fd) {
            recordArrivalInterface(fd, isIPv6: bound.address.isIPv6)
            return ListeningSocket(descriptor: fd, kind: .tcp(bound))
        }
        var address = sockaddr_un()
        length = socklen_t(MemoryLayout<sockaddr_un>.size)
        let rc = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        guard rc == 0, address.sun_family == sa_family_t(AF_UNIX) else {
            throw SocketError(
                operation: "inherit", address: name, errno: EINVAL, detail: "neither TCP nor a Unix socket")
        }
        let path = withUnsafeBytes(of: address.sun_path) { raw in
            String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
        }
        return ListeningSocket(descriptor: fd, kind: .unix(path: path))
    }

    /// Asks the kernel to keep the interface each accepted connection's first packet came in on (read with
    /// `IP_PKTOPTIONS`); on a dual-stack socket the IPv6 option covers v4-mapped peers too.
    private static func recordArrivalInterface(_ fd: Int32, isIPv6: Bool) {
        var one: Int32 = 1
        let size = socklen_t(MemoryLayout<Int32>.size)
        if isIPv6 {
            setsockopt(fd, Int32(IPPROTO_IPV6), 49, &one, size)  // IPV6_RECVPKTINFO
        } else {
            setsockopt(fd, Int32(IPPROTO_IP), 8, &one, size)  // IP_PKTINFO
        }
    }

    /// Binds and listens on a Unix stream socket, replacing a stale socket file (never any other
    /// kind of file), then applies `mode` (e.g. 0o660) and, if given, the group.
    package static func unix(
        path: String, mode: mode_t, group: gid_t? = nil, backlog: Int32 = 16
    )
        throws(SocketError) -> ListeningSocket
    {
        guard let address = UnixSocketAddress(path: path) else {
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
        let rc = address.withSockaddr { bind(fd, $0, $1) }
        guard rc == 0 else {
            let code = errno
            Glibc.close(fd)
            throw SocketError(operation: "bind", address: path, errno: code)
        }
        if chmod(path, mode) != 0 {
            let code = errno
            Glibc.close(fd)
            unlink(path)
            throw SocketError(operation: "chmod", address: path, errno: code)
        }
        // The socket file takes the process's group. Under its unit (Group=aiden) that is already the one
        // wanted, and the unit's seccomp filter denies the chown family (@privileged): call it only when needed.
        if let group, lstat(path, &status) == 0, status.st_gid != group, chown(path, uid_t.max, group) != 0 {
            let code = errno
            Glibc.close(fd)
            unlink(path)
            throw SocketError(operation: "chown", address: path, errno: code)
        }
        guard listen(fd, backlog) == 0 else {
            let code = errno
            Glibc.close(fd)
            unlink(path)
            throw SocketError(operation: "listen", address: path, errno: code)
        }
        return ListeningSocket(descriptor: fd, kind: .unix(path: path))
    }
}
