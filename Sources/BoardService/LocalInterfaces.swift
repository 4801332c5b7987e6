import NetworkAddress
import Platform

#if canImport(Glibc)
import Glibc
#endif

/// The host's interface addresses (getifaddrs): whether the ECM address is really here, on which
/// interface, and whether that interface is up. Read-only; never opens a socket.
package struct LocalInterfaces: Sendable {
    package struct Entry: Sendable, Equatable {
        package var name: String
        package var address: IPAddress
        package var prefixLength: Int
        package var isUp: Bool
        package var isRunning: Bool
    }

    package var entries: [Entry]

    package init(entries: [Entry]) {
        self.entries = entries
    }

    /// The current addresses of this network namespace.
    package static func current() -> LocalInterfaces {
        var head: UnsafeMutablePointer<ifaddrs>?
        guard getifaddrs(&head) == 0 else { return LocalInterfaces(entries: []) }
        defer { freeifaddrs(head) }
        var entries: [Entry] = []
        var cursor = head
        while let item = cursor {
            defer { cursor = item.pointee.ifa_next }
            guard let address = item.pointee.ifa_addr,
                let endpoint = SockaddrStorage.endpoint(from: address)
            else { continue }
            var prefix = 0
            if let mask = item.pointee.ifa_netmask, let maskEndpoint = SockaddrStorage.endpoint(from: mask) {
                prefix = maskEndpoint.address.bytes.reduce(0) { $0 + $1.nonzeroBitCount }
            }
            let flags = item.pointee.ifa_flags
            entries.append(
                Entry(
                    name: String(cString: item.pointee.ifa_name), address: endpoint.address,
                    prefixLength: prefix, isUp: flags & UInt32(IFF_UP) != 0,
                    isRunning: flags & UInt32(IFF_RUNNING) != 0))
        }
        return LocalInterfaces(entries: entries)
    }

    package func interface(holding address: IPAddress) -> Entry? {
        entries.first { $0.address == address.unmapped || $0.address == address }
    }

    /// The USB link as `/status` reports it: the interface holding the first specific (not wildcard,
    /// not loopback) listen address, up when it is up and has carrier.
    package func usbLink(listen: [SocketEndpoint]) -> (link: String, interface: String?) {
        let specific = listen.map(\.address).filter { !$0.isUnspecified && !$0.isLoopback }
        guard let address = specific.first else { return ("unknown", nil) }
        guard let entry = interface(holding: address) else { return ("down", nil) }
        return (entry.isUp && entry.isRunning ? "up" : "down", entry.name)
    }
}
