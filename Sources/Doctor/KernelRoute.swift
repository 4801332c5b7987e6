import NetworkAddress
import Platform

/// One line of /proc/net/route: which interface the kernel sends a destination block to. Both doctors read
/// the table to find another network in the ECM link's subnet (Android USB tethering uses 192.168.42.0/24
/// too, and so do some home networks). IPv6 routes are not read: the ECM link is IPv4.
package struct KernelRoute: Equatable, Sendable {
    package var interface: String
    package var destination: Subnet
    /// nil for a directly connected network (gateway 0.0.0.0).
    package var gateway: IPAddress?
    /// RTF_UP.
    package var isUp: Bool

    package init(interface: String, destination: Subnet, gateway: IPAddress? = nil, isUp: Bool = true) {
        self.interface = interface
        self.destination = destination
        self.gateway = gateway
        self.isUp = isUp
    }

    /// Parses /proc/net/route. Addresses there are the kernel's network-order words printed as
    /// native-endian hex (`0001A8C0` is 192.168.1.0 on a little-endian host). The header, malformed
    /// lines and non-contiguous masks are skipped.
    package static func parseTable(_ text: String) -> [KernelRoute] {
        text.split(separator: "\n").compactMap { line -> KernelRoute? in
            let fields = line.split(whereSeparator: { $0 == "\t" || $0 == " " })
            guard fields.count >= 8, let destination = address(fields[1]), let gateway = address(fields[2]),
                let flags = UInt32(fields[3], radix: 16), let mask = address(fields[7]),
                case let .v4(maskBits) = mask, maskBits.trailingZeroBitCount + maskBits.nonzeroBitCount == 32,
                let subnet = try? Subnet("\(destination)/\(maskBits.nonzeroBitCount)")
            else { return nil }
            return KernelRoute(
                interface: String(fields[0]), destination: subnet,
                gateway: gateway == IPAddress(v4: 0, 0, 0, 0) ? nil : gateway, isUp: flags & 0x1 != 0)
        }
    }

    /// /proc/net/route of this network namespace; nil when unreadable.
    package static func readTable(path: String = "/proc/net/route") -> String? {
        guard let bytes = try? POSIXFileSystem().readFile(at: path) else { return nil }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// A /proc/net/route address field: 8 hex digits of the network-order word in native byte order.
    private static func address(_ field: Substring) -> IPAddress? {
        guard field.count == 8, let word = UInt32(field, radix: 16) else { return nil }
        return IPAddress(bytes: withUnsafeBytes(of: word) { Array($0) })
    }
}
