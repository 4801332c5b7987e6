import Configuration
import NetworkAddress

#if canImport(Glibc)
import Glibc
#endif

/// Subnet collisions: another route to addresses inside the ECM subnet (Android USB tethering
/// uses 192.168.42.0/24 too, and so do some home networks) sends the phone link's traffic
/// elsewhere. Parsing and judging are pure; only `readIPv4RouteTable` touches the system.
/// IPv6 routes are not read: the ECM link is IPv4.
extension BoardDoctor {
    /// One line of /proc/net/route.
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
    }

    /// Parses /proc/net/route. Addresses there are the kernel's network-order words printed as
    /// native-endian hex (`0001A8C0` is 192.168.1.0 on a little-endian host). The header, malformed
    /// lines and non-contiguous masks are skipped.
    package static func parseIPv4Routes(_ text: String) -> [KernelRoute] {
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

    /// Findings for routes that overlap `subnet` without going through the ECM interface. A route
    /// as specific as the subnet or more is a problem (the kernel may prefer it, by metric); a
    /// broader one (not the default route) only matters while the ECM link is down.
    package static func routeCollisions(
        subnet: Subnet, ecmInterfaces: Set<String>,
        routes: [KernelRoute]
    ) -> [Finding] {
        let colliding = routes.filter { route in
            route.isUp && route.destination.prefixLength > 0 && !ecmInterfaces.contains(route.interface)
                && (route.destination.contains(subnet.network) || subnet.contains(route.destination.network))
        }
        guard !colliding.isEmpty else {
            return [Finding(severity: .ok, message: "no other route overlaps the ECM subnet \(subnet)")]
        }
        return colliding.map { route in
            let via = "dev \(route.interface)" + (route.gateway.map { " via \($0)" } ?? "")
            if route.destination.prefixLength >= subnet.prefixLength {
                return Finding(
                    severity: .problem,
                    message: "route \(route.destination) \(via) overlaps the ECM subnet \(subnet): traffic for the "
                        + "phone link may go to \(route.interface) (Android USB tethering uses 192.168.42.0/24)",
                    fix: "turn off USB tethering or the other network on \(route.interface), or move the ECM link to "
                        + "another subnet ([http] listen and allowed_subnets, and both .network files)")
            }
            return Finding(
                severity: .info,
                message: "route \(route.destination) \(via) covers the ECM subnet \(subnet): while the ECM "
                    + "link is down, its traffic goes to \(route.interface)")
        }
    }

    /// The ECM subnet(s) the configuration serves and the interfaces that carry them, then the
    /// collisions among `routeTable` (the text of /proc/net/route; nil when it could not be read).
    static func routeCollisions(
        _ configuration: BoardConfiguration, interfaces: LocalInterfaces,
        routeTable: String?
    ) -> [Finding] {
        let addresses = configuration.http.listen.map(\.address.unmapped)
            .filter { !$0.isLoopback && !$0.isUnspecified && !$0.isIPv6 }
        guard !addresses.isEmpty else { return [] }
        guard let routeTable else {
            return [Finding(severity: .info, message: "cannot read /proc/net/route: subnet collisions not checked")]
        }
        let routes = parseIPv4Routes(routeTable)
        var subnets: [Subnet] = []
        var ecmInterfaces: Set<String> = ["aiden0"]
        for address in addresses {
            let subnet =
                configuration.http.allowedSubnets.first { $0.contains(address) }
                ?? BoardConfiguration.ecmSubnet
            if !subnets.contains(subnet) { subnets.append(subnet) }
            if let entry = interfaces.interface(holding: address) { ecmInterfaces.insert(entry.name) }
        }
        return subnets.flatMap { routeCollisions(subnet: $0, ecmInterfaces: ecmInterfaces, routes: routes) }
    }

    /// /proc/net/route of this network namespace; nil when unreadable.
    package static func readIPv4RouteTable(path: String = "/proc/net/route") -> String? {
        guard let file = fopen(path, "re") else { return nil }
        defer { fclose(file) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = buffer.withUnsafeMutableBytes { fread($0.baseAddress, 1, $0.count, file) }
            bytes += buffer[0..<count]
            if count < buffer.count { break }
        }
        return ferror(file) == 0 ? String(decoding: bytes, as: UTF8.self) : nil
    }

    /// A /proc/net/route address field: 8 hex digits of the network-order word in native byte order.
    private static func address(_ field: Substring) -> IPAddress? {
        guard field.count == 8, let word = UInt32(field, radix: 16) else { return nil }
        return IPAddress(bytes: withUnsafeBytes(of: word) { Array($0) })
    }
}
