import NetworkAddress

/// Another network in the ECM link's subnet, judged the same way on both ends of the cable: a route to
/// addresses inside the subnet (or an address inside it) on another interface sends the link's traffic
/// elsewhere. Android USB tethering uses 192.168.42.0/24 too, and so do some home networks.
package enum SubnetCollisions {
    /// What each end calls the link and where its subnet is configured, for the findings' words.
    package struct Wording: Sendable {
        /// "the phone link" on the board, "the board link" on the phone host.
        package var link: String
        /// Every setting that moves the link to another subnet, for the fix.
        package var relocation: String

        package init(link: String, relocation: String) {
            self.link = link
            self.relocation = relocation
        }
    }

    /// Findings for up routes that overlap `subnet` without going through one of `linkInterfaces` (none:
    /// no collision). A route as specific as the subnet or more is a problem (the kernel may prefer it, by
    /// metric); a broader one (not the default route) only matters while the ECM link is down.
    package static func routes(
        _ routes: [KernelRoute], subnet: Subnet, linkInterfaces: Set<String>, wording: Wording
    ) -> [DoctorFinding] {
        let colliding = routes.filter { route in
            route.isUp && route.destination.prefixLength > 0 && !linkInterfaces.contains(route.interface)
                && (route.destination.contains(subnet.network) || subnet.contains(route.destination.network))
        }
        return colliding.map { route in
            let via = "dev \(route.interface)" + (route.gateway.map { " via \($0)" } ?? "")
            if route.destination.prefixLength >= subnet.prefixLength {
                return .problem(
                    "route \(route.destination) \(via) overlaps the ECM subnet \(subnet): traffic for "
                        + "\(wording.link) may go to \(route.interface) (Android USB tethering uses 192.168.42.0/24)",
                    fix: fix(route.interface, wording))
            }
            return .info(
                "route \(route.destination) \(via) covers the ECM subnet \(subnet): while the ECM "
                    + "link is down, its traffic goes to \(route.interface)")
        }
    }

    /// Findings for addresses inside `subnet` on interfaces other than `linkInterfaces` (loopback aside):
    /// the kernel then has two ways to the link's peer, and the other network's hosts share its addresses.
    package static func addresses(
        _ interfaces: LocalInterfaces, subnet: Subnet, linkInterfaces: Set<String>, wording: Wording
    ) -> [DoctorFinding] {
        interfaces.entries.filter { entry in
            !linkInterfaces.contains(entry.name) && !entry.address.isLoopback && subnet.contains(entry.address)
        }.map { entry in
            .problem(
                "\(entry.name) has \(entry.address)/\(entry.prefixLength), inside the ECM subnet \(subnet): traffic "
                    + "for \(wording.link) may go to \(entry.name) (Android USB tethering uses 192.168.42.0/24)",
                fix: fix(entry.name, wording))
        }
    }

    private static func fix(_ interface: String, _ wording: Wording) -> String {
        "turn off USB tethering or the other network on \(interface), or move the ECM link to another subnet "
            + "(\(wording.relocation))"
    }
}
