import NetworkAddress

#if canImport(Glibc)
import Glibc
#endif

/// Converts between `SocketEndpoint` / `IPAddress` and the C `sockaddr` family of structs.
package struct SockaddrStorage {
    private var storage = sockaddr_storage()
    private var length: socklen_t

    package init(_ endpoint: SocketEndpoint) {
        length = 0
        let bytes = endpoint.address.bytes
        withUnsafeMutablePointer(to: &storage) { pointer in
            if endpoint.address.isIPv6 {
                pointer.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { sin6 in
                    sin6.pointee.sin6_family = sa_family_t(AF_INET6)
                    sin6.pointee.sin6_port = endpoint.port.bigEndian
                    withUnsafeMutableBytes(of: &sin6.pointee.sin6_addr) { raw in
                        for index in 0..<16 { raw[index] = bytes[index] }
                    }
                }
            } else {
                pointer.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { sin in
                    sin.pointee.sin_family = sa_family_t(AF_INET)
                    sin.pointee.sin_port = endpoint.port.bigEndian
                    withUnsafeMutableBytes(of: &sin.pointee.sin_addr) { raw in
                        for index in 0..<4 { raw[index] = bytes[index] }
                    }
                }
            }
        }
        length = socklen_t(endpoint.address.isIPv6 ? MemoryLayout<sockaddr_in6>.size : MemoryLayout<sockaddr_in>.size)
    }

    package func withSockaddr<R>(_ body: (UnsafePointer<sockaddr>, socklen_t) -> R) -> R {
        withUnsafePointer(to: storage) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, length) }
        }
    }

    /// The IP endpoint of a C socket address; nil for other families (e.g. AF_UNIX).
    package static func endpoint(from address: UnsafePointer<sockaddr>) -> SocketEndpoint? {
        switch Int32(address.pointee.sa_family) {
        case AF_INET:
            return address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { sin in
                let raw = withUnsafeBytes(of: sin.pointee.sin_addr) { Array($0) }
                return IPAddress(bytes: raw).map {
                    SocketEndpoint(address: $0, port: UInt16(bigEndian: sin.pointee.sin_port))
                }
            }
        case AF_INET6:
            return address.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { sin6 in
                let raw = withUnsafeBytes(of: sin6.pointee.sin6_addr) { Array($0) }
                return IPAddress(bytes: raw).map {
                    SocketEndpoint(address: $0, port: UInt16(bigEndian: sin6.pointee.sin6_port))
                }
            }
        default:
            return nil
        }
    }

    /// getsockname(2) of a socket as an IP endpoint.
    package static func localEndpoint(of fd: Int32) -> SocketEndpoint? {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        return withUnsafeMutablePointer(to: &storage) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { address in
                guard getsockname(fd, address, &length) == 0 else { return nil }
                return endpoint(from: address)
            }
        }
    }
}
