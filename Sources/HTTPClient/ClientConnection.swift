import HTTPClientCore
import NetworkAddress
import Platform

#if canImport(Glibc)
import Glibc
#endif

/// One connected, non-blocking stream socket and what it was opened for: a TCP connection to the board or a
/// Unix socket to a daemon. Every wait is a poll(2) bounded by the request's deadline, so no call blocks past it.
/// Owned by one `HTTPClient` and used under its mutex only.
final class ClientConnection {
    /// What a later request must match to reuse this connection.
    struct Key: Equatable {
        var destination: RequestPlan.Destination
        var localEnd: LocalEnd?

        init(_ plan: RequestPlan) {
            destination = plan.destination
            localEnd = plan.localEnd
        }
    }

    typealias Instant = ContinuousClock.Instant
    typealias LocalEnd = HTTPClientRequest.LocalEnd

    let key: Key
    private let fd: Int32
    /// What `receive` reads into: one per connection, not one per request.
    private var inbox = [UInt8](repeating: 0, count: 16 * 1024)

    private init(key: Key, fd: Int32) {
        self.key = key
        self.fd = fd
    }

    deinit { close(fd) }

    /// Connects to the plan's destination within `connectBy` (the sooner of the connect and total timeouts),
    /// trying each address in turn.
    static func open(_ plan: RequestPlan, connectBy deadline: Instant) throws(HTTPClientError) -> ClientConnection {
        let key = Key(plan)
        switch plan.destination {
        case .unixSocket(let path):
            guard let address = UnixSocketAddress(path: path) else {
                throw .invalidRequest("Unix socket path \"\(path)\" is too long for a socket address")
            }
            let fd = try socket(family: AF_UNIX)
            do throws(HTTPClientError) {
                try address.withSockaddr { pointer, length in
                    Result { () throws(HTTPClientError) in try connect(fd, pointer, length, by: deadline) }
                }.get()
            } catch {
                close(fd)
                throw error
            }
            return ClientConnection(key: key, fd: fd)
        case .tcp(let addresses, let port):
            var lastError = HTTPClientError.couldNotConnect("no address to connect to")
            for address in addresses {
                let fd = try socket(family: address.isIPv6 ? AF_INET6 : AF_INET)
                do throws(HTTPClientError) {
                    try bindLocalEnd(fd, plan.localEnd, family: address.isIPv6 ? AF_INET6 : AF_INET)
                    try SockaddrStorage(SocketEndpoint(address: address, port: port)).withSockaddr { pointer, length in
                        Result { () throws(HTTPClientError) in try connect(fd, pointer, length, by: deadline) }
                    }.get()
                    var on: Int32 = 1
                    _ = setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &on, socklen_t(MemoryLayout<Int32>.size))
                    return ClientConnection(key: key, fd: fd)
                } catch {
                    close(fd)
                    guard case .couldNotConnect = error else { throw error }
                    lastError = error
                }
            }
            throw lastError
        }
    }

    /// Whether the connection can carry another request: open, and with nothing unread on it (an end, a reset,
    /// or bytes nobody asked for all mean it cannot).
    var isIdle: Bool {
        var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        return poll(&entry, 1, 0) == 0
    }

    /// Sends all of `bytes` by the deadline.
    func send(_ bytes: [UInt8], by deadline: Instant) throws(HTTPClientError) {
        var sent = 0
        while sent < bytes.count {
            guard ContinuousClock.now < deadline else { throw .timedOut }
            let count = bytes[sent...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if count >= 0 {
                sent += count
                continue
            }
            switch errno {
            case EINTR: continue
            case EAGAIN: try Self.wait(fd, for: POLLOUT, by: deadline)
            default: throw .connectionLost(Self.reason(errno))
            }
        }
    }

    /// The next bytes from the peer (empty when it closed the connection), waiting at most until the deadline. The
    /// deadline is looked at before every read, so a peer that never stops sending is cut off at it too.
    func receive(by deadline: Instant) throws(HTTPClientError) -> ArraySlice<UInt8> {
        while true {
            guard ContinuousClock.now < deadline else { throw .timedOut }
            let count = inbox.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count >= 0 { return inbox[..<count] }
            switch errno {
            case EINTR: continue
            case EAGAIN: try Self.wait(fd, for: POLLIN, by: deadline)
            default: throw .connectionLost(Self.reason(errno))
            }
        }
    }

    private static func socket(family: Int32) throws(HTTPClientError) -> Int32 {
        let type = Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue)
        let fd = Glibc.socket(family, type, 0)
        guard fd >= 0 else { throw .couldNotConnect("socket: \(reason(errno))") }
        return fd
    }

    private static func connect(
        _ fd: Int32, _ address: UnsafePointer<sockaddr>, _ length: socklen_t, by deadline: Instant
    ) throws(HTTPClientError) {
        while Glibc.connect(fd, address, length) != 0 {
            switch errno {
            case EINPROGRESS, EINTR:
                try finishConnecting(fd, by: deadline)
                return
            case EAGAIN:
                // A Unix socket whose listener's queue is full: asked again until the deadline, as a blocking
                // connect would wait.
                guard ContinuousClock.now < deadline else { throw .timedOut }
                _ = poll(nil, 0, 10)
            case let failure:
                throw .couldNotConnect(reason(failure))
            }
        }
    }

    private static func finishConnecting(_ fd: Int32, by deadline: Instant) throws(HTTPClientError) {
        try wait(fd, for: POLLOUT, by: deadline)
        var failure: Int32 = 0
        var size = socklen_t(MemoryLayout<Int32>.size)
        guard getsockopt(fd, SOL_SOCKET, SO_ERROR, &failure, &size) == 0 else { throw .couldNotConnect(reason(errno)) }
        guard failure == 0 else { throw .couldNotConnect(reason(failure)) }
    }

    /// Ties the local end before connecting. An interface is bound with `SO_BINDTODEVICE` (no privilege needed
    /// since Linux 5.7); where that is not allowed, the socket is bound to the interface's own address instead,
    /// which keeps the source right though not the route. A missing interface fails at once: "no such device".
    private static func bindLocalEnd(_ fd: Int32, _ end: LocalEnd?, family: Int32) throws(HTTPClientError) {
        switch end {
        case nil:
            return
        case .address(let address)?:
            try bind(fd, to: address)
        case .interface(let name)?:
            let result = name.withCString { setsockopt(fd, SOL_SOCKET, SO_BINDTODEVICE, $0, socklen_t(strlen($0) + 1)) }
            if result == 0 { return }
            let failure = errno
            guard failure == EPERM || failure == EACCES else { throw .couldNotConnect(reason(failure)) }
            guard let all = InterfaceAddressRecord.readAll() else {
                throw .couldNotConnect("binding to \(name): \(reason(failure)), and the interfaces could not be read")
            }
            let records = all.filter { $0.name == name }
            guard !records.isEmpty else { throw .couldNotConnect(reason(ENODEV)) }
            // A link-local IPv6 address cannot be bound without its scope: a routable one of the family is wanted.
            let own = records.compactMap(\.address).first {
                $0.isIPv6 == (family == AF_INET6) && !($0.isIPv6 && $0.bytes.starts(with: [0xFE, 0x80]))
            }
            guard let own else {
                throw .couldNotConnect("\(name) has no \(family == AF_INET6 ? "IPv6" : "IPv4") address to bind to")
            }
            try bind(fd, to: own)
        }
    }

    private static func bind(_ fd: Int32, to address: IPAddress) throws(HTTPClientError) {
        let result = SockaddrStorage(SocketEndpoint(address: address, port: 0)).withSockaddr { Glibc.bind(fd, $0, $1) }
        guard result == 0 else { throw .couldNotConnect("binding the local end to \(address): \(reason(errno))") }
    }

    /// Waits until the socket is ready for `events`; throws `.timedOut` at the deadline.
    private static func wait(_ fd: Int32, for events: Int32, by deadline: Instant) throws(HTTPClientError) {
        while true {
            let left = ContinuousClock.now.duration(to: deadline)
            guard left > .zero else { throw .timedOut }
            let (seconds, attoseconds) = left.components
            let milliseconds = Int32(
                clamping: seconds * 1_000 + (attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000)
            var entry = pollfd(fd: fd, events: Int16(events), revents: 0)
            let ready = poll(&entry, 1, milliseconds)
            if ready > 0 { return }  // ready, or hung up or failed: the next call says which
            if ready < 0, errno != EINTR { throw .connectionLost(reason(errno)) }
        }
    }

    /// The system's words for an errno, lower-cased as a clause ("connection refused").
    private static func reason(_ code: Int32) -> String {
        String(cString: strerror(code)).lowercased()
    }
}
