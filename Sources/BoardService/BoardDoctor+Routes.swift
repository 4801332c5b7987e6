import Configuration
import Doctor
import NetworkAddress

/// Subnet collisions on the board (Doctor's `SubnetCollisions` judges them): the ECM subnet(s) the
/// configuration serves and the interfaces that carry them. Only `KernelRoute.readTable` touches the system.
extension BoardDoctor {
    static let collisionWording = SubnetCollisions.Wording(
        link: "the phone link", relocation: "[http] listen and allowed_subnets, and both .network files")

    /// The collisions with `subnet` among `routes`, or one ok finding when there are none.
    package static func routeCollisions(
        subnet: Subnet, ecmInterfaces: Set<String>,
        routes: [KernelRoute]
    ) -> [DoctorFinding] {
        let collisions = SubnetCollisions.routes(
            routes, subnet: subnet, linkInterfaces: ecmInterfaces, wording: collisionWording)
        return collisions.isEmpty ? [.ok("no other route overlaps the ECM subnet \(subnet)")] : collisions
    }

    /// The ECM subnet(s) the configuration serves and the interfaces that carry them, then the
    /// collisions among `routeTable` (the text of /proc/net/route; nil when it could not be read).
    static func routeCollisions(
        _ configuration: BoardConfiguration, interfaces: LocalInterfaces,
        routeTable: String?
    ) -> [DoctorFinding] {
        let addresses = configuration.http.listen.map(\.address.unmapped)
            .filter { !$0.isLoopback && !$0.isUnspecified && !$0.isIPv6 }
        guard !addresses.isEmpty else { return [] }
        guard let routeTable else {
            return [.info("cannot read /proc/net/route: subnet collisions not checked")]
        }
        let routes = KernelRoute.parseTable(routeTable)
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
}
