import NetworkAddress

#if canImport(Glibc)
import Glibc
#endif

/// A UDP socket for the loopback Wake transport: each datagram is one 12-byte envelope
/// (docs/protocol.md §2.8, `[wake] loopback_target`). Sending never blocks the caller for long:
/// a full socket buffer drops the datagram, exactly like a missed BLE notification.
package final class UDPDatagramSocket: @unchecked Sendable {  // fd is immutable; close is guarded by the kernel
    package let descriptor: Int32
    /// The local endpoint (for a receiver bound to port 0, the port the kernel chose).
    package let localEndpoint: SocketEndpoint?

    /// A non-blocking sending socket for datagrams to addresses of `target`'s family.
    package init(sendingTo target: SocketEndpoint) throws(SocketError) {
        descriptor = socket(
            target.address.isIPv6 ? AF_INET6 : AF_INET,
            Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
        guard descriptor >= 0 else {
            throw SocketError(operation: "socket", address: target.description, errno: errno)
        }
        localEndpoint = nil
    }

    /// A receiving socket bound to `endpoint`; `receive` blocks until a datagram or the timeout.
    package init(receivingOn endpoint: SocketEndpoint) throws(SocketError) {
        let fd = socket(
            endpoint.address.isIPv6 ? AF_INET6 : AF_INET,
            Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else {
            throw SocketError(operation: "socket", address: endpoint.description, errno: errno)
        }
        // No SO_REUSEADDR: for UDP it would let a second receiver share the port and steal Wakes.
        let rc = SockaddrStorage(endpoint).withSockaddr { bind(fd, $0, $1) }
        guard rc == 0 else {
            let code = errno
            close(fd)
            throw SocketError(operation: "bind", address: endpoint.description, errno: code)
        }
        descriptor = fd
        localEndpoint = SockaddrStorage.localEndpoint(of: fd)
    }

    deinit { close(descriptor) }

    /// Sends one datagram; a failure carries the errno when the kernel refused it.
    @discardableResult
    package func send(_ bytes: [UInt8], to target: SocketEndpoint) -> Result<Void, SocketError> {
        let sent = SockaddrStorage(target).withSockaddr { address, length in
            bytes.withUnsafeBytes { sendto(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL), address, length) }
        }
        guard sent == bytes.count else {
            return .failure(SocketError(operation: "sendto", address: target.description, errno: errno))
        }
        return .success(())
    }

    /// Waits up to `timeoutMilliseconds` for one datagram (at most `maxBytes`); nil on timeout.
    /// Longer datagrams are truncated, and their true length is reported so callers can reject them.
    package func receive(
        maxBytes: Int = 64, timeoutMilliseconds: Int32
    )
        -> (bytes: [UInt8], fullLength: Int, from: SocketEndpoint?)?
    {
        var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        guard poll(&poller, 1, timeoutMilliseconds) > 0 else { return nil }
        var buffer = [UInt8](repeating: 0, count: maxBytes)
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let count = withUnsafeMutablePointer(to: &storage) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { address in
                buffer.withUnsafeMutableBytes {
                    recvfrom(
                        descriptor, $0.baseAddress, $0.count, Int32(MSG_TRUNC) | Int32(MSG_DONTWAIT), address, &length)
                }
            }
        }
        guard count >= 0 else { return nil }
        let sender = withUnsafePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { SockaddrStorage.endpoint(from: $0) }
        }
        return (Array(buffer[..<min(count, maxBytes)]), count, sender)
    }
}

/// A failed socket call with the address it concerned and the system's reason: every socket the daemons open,
/// bind, connect or listen on (Platform's, and the HTTP server's listeners).
package struct SocketError: Error, Equatable, Sendable, CustomStringConvertible {
    package let operation: String
    package let address: String
    package let errno: Int32
    /// Words that say more than `errno` alone (a path too long for a Unix socket), shown instead of its reason.
    package var detail: String?

    package init(operation: String, address: String, errno: Int32, detail: String? = nil) {
        self.operation = operation
        self.address = address
        self.errno = errno
        self.detail = detail
    }

    /// The system's words for `errno` ("Connection refused"), or `detail`, for messages that name the address
    /// themselves.
    package var reason: String { detail ?? String(cString: strerror(errno)) }

    /// Whether this user may not use the address (EACCES): a fix about groups, not about the daemon.
    package var isPermissionDenied: Bool { errno == EACCES }

    package var description: String { "\(operation) \(address): \(reason)" }
}
