import NetworkAddress

#if canImport(Glibc)
import Glibc
#endif

/// One record of getifaddrs(3), as Swift values: an interface's name and flags, and the IP address on it with
/// its prefix. The kernel lists every interface once without an IP address (its AF_PACKET record), so a link
/// that has no address is still seen. Read here so the doctors never walk the C list themselves.
package struct InterfaceAddressRecord: Sendable, Equatable {
    package var name: String
    /// IFF_UP: configured up.
    package var isUp: Bool
    /// IFF_RUNNING: up with carrier (operstate up).
    package var isRunning: Bool
    /// The IPv4 or IPv6 address; nil for a record of another family.
    package var address: IPAddress?
    /// The netmask's bit count (0 when the record has none).
    package var prefixLength: Int

    package init(name: String, isUp: Bool, isRunning: Bool, address: IPAddress?, prefixLength: Int) {
        self.name = name
        self.isUp = isUp
        self.isRunning = isRunning
        self.address = address
        self.prefixLength = prefixLength
    }

    /// Every record of this network namespace, in the kernel's order; nil when getifaddrs(3) fails (no memory,
    /// no netlink socket), so callers do not take "no addresses" for "cannot tell".
    package static func readAll() -> [InterfaceAddressRecord]? {
        var head: UnsafeMutablePointer<ifaddrs>?
        guard getifaddrs(&head) == 0 else { return nil }
        defer { freeifaddrs(head) }
        var records: [InterfaceAddressRecord] = []
        var cursor = head
        while let item = cursor {
            defer { cursor = item.pointee.ifa_next }
            let flags = item.pointee.ifa_flags
            let address = item.pointee.ifa_addr.flatMap { SockaddrStorage.endpoint(from: $0) }?.address
            var prefix = 0
            if address != nil, let mask = item.pointee.ifa_netmask,
                let maskEndpoint = SockaddrStorage.endpoint(from: mask)
            {
                prefix = maskEndpoint.address.bytes.reduce(0) { $0 + $1.nonzeroBitCount }
            }
            records.append(
                InterfaceAddressRecord(
                    name: String(cString: item.pointee.ifa_name), isUp: flags & UInt32(IFF_UP) != 0,
                    isRunning: flags & UInt32(IFF_RUNNING) != 0, address: address, prefixLength: prefix))
        }
        return records
    }
}
