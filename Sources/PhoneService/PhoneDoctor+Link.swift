import Configuration
import Doctor
import NetworkAddress

/// The USB ECM link on the host: the board's interface, its state and address, and another network in
/// the board's subnet.
extension PhoneDoctor {
    static let collisionWording = SubnetCollisions.Wording(
        link: "the board link",
        relocation: "[board] url here; [http] listen and allowed_subnets on the board; both .network files")

    /// The board's interface (`aidenboard0`, or the kernel's name for it when udev did not rename it), up
    /// with carrier, with an address in the board's subnet. Also returns the names the link goes by and the
    /// subnet, for the collision check.
    static func ecmLink(
        board: IPAddress, interfaces: LocalInterfaces, devices: [USBDeviceRecord], ids: String
    ) -> (findings: [DoctorFinding], names: Set<String>, subnet: Subnet) {
        let boards = devices.filter { $0.manufacturer == boardManufacturer }
        let kernelNames = boards.flatMap(\.networkInterfaces)
        let names = Set([ecmInterface] + kernelNames)
        var subnet = defaultSubnet(board)
        var findings: [DoctorFinding] = []
        let link: LocalInterfaces.Link
        if let named = interfaces.link(named: ecmInterface) {
            link = named
        } else if let other = kernelNames.lazy.compactMap({ interfaces.link(named: $0) }).first {
            link = other
            findings.append(
                .problem(
                    "the board's ECM interface is \(other.name), not \(ecmInterface): udev did not rename it",
                    fix: "install udev/\(udevRuleName) and systemd/network/70-aiden-board.link (scripts/install), "
                        + "run 'udevadm control --reload', then unplug and replug the board"))
        } else if let device = boards.first {
            findings.append(
                .problem(
                    "the board is plugged in (USB \(device.name)) but has no network interface: the host's "
                        + "CDC ECM driver did not take it",
                    fix: "modprobe cdc_ether, then unplug and replug the board; 'dmesg' shows why it did not bind"))
            return (findings, names, subnet)
        } else {
            findings.append(
                .problem(
                    "no \(ecmInterface): the board is not plugged in (no USB device \(ids) from "
                        + "\(boardManufacturer))",
                    fix: "plug the board in with a data cable (not a charge-only one); on the board, "
                        + "'aiden-board doctor' checks its side"))
            return (findings, names, subnet)
        }
        if !link.isUp {
            findings.append(
                .problem(
                    "\(link.name) is down",
                    fix: "systemctl enable --now systemd-networkd (70-aiden-board.network brings it up), "
                        + "or 'ip link set \(link.name) up'"))
        } else if !link.isRunning {
            findings.append(
                .problem(
                    "\(link.name) is up but has no carrier: the board's side of the link is down",
                    fix: "on the board: 'systemctl status aiden-gadget' and 'aiden-board doctor'; or unplug and "
                        + "replug the board"))
        }
        let addresses = interfaces.entries(on: link.name).filter { $0.address.isIPv6 == board.isIPv6 }
        if addresses.contains(where: { $0.address == board }) {
            findings.append(
                .problem(
                    "\(link.name) has the board's own address \(board)",
                    fix: "give \(link.name) another address in the board's subnet (192.168.42.2/24 in "
                        + "70-aiden-board.network)"))
        } else if let host = addresses.first(where: { $0.subnet.contains(board) }) {
            subnet = host.subnet
            if link.isUp && link.isRunning {
                findings.append(
                    .ok(
                        "\(link.name) is up with carrier and has \(host.address)/\(host.prefixLength), in the "
                            + "board's subnet (board \(board))"))
            } else {
                findings.append(.ok("\(link.name) has \(host.address)/\(host.prefixLength), in the board's subnet"))
            }
        } else {
            let others = addresses.map { "\($0.address)/\($0.prefixLength)" }
            findings.append(
                .problem(
                    "\(link.name) has no address in the board's subnet (the board is \(board))"
                        + (others.isEmpty ? "" : "; it has \(others.joined(separator: ", "))"),
                    fix: "systemctl enable --now systemd-networkd (70-aiden-board.network gives it "
                        + "192.168.42.2/24), or the NetworkManager profile in docs/deployment.md; for another "
                        + "[board] url, an address in that board's subnet"))
        }
        return (findings, names, subnet)
    }

    /// Addresses, then routes, inside `subnet` on another interface than the link's; one ok when none.
    static func collisions(
        subnet: Subnet, linkInterfaces: Set<String>, interfaces: LocalInterfaces, routes: [KernelRoute]?
    ) -> [DoctorFinding] {
        let addressed = SubnetCollisions.addresses(
            interfaces, subnet: subnet, linkInterfaces: linkInterfaces, wording: collisionWording)
        // An interface already named for its address is not named again for the route the address brings.
        let named = Set(
            interfaces.entries.filter { !linkInterfaces.contains($0.name) && subnet.contains($0.address) }.map(\.name))
        var findings = addressed
        if subnet.network.isIPv6 {
            // /proc/net/route is IPv4 only.
        } else if let routes {
            findings += SubnetCollisions.routes(
                routes, subnet: subnet, linkInterfaces: linkInterfaces.union(named), wording: collisionWording)
        } else {
            findings.append(.info("cannot read /proc/net/route: routes into the board's subnet not checked"))
        }
        return findings.isEmpty
            ? [.ok("no other interface has an address or a route in the board's subnet \(subnet)")] : findings
    }

    /// The board's subnet when no interface says: the ECM default's for its addresses, else a /24 (IPv4) or
    /// /64 (IPv6) around the board.
    static func defaultSubnet(_ board: IPAddress) -> Subnet {
        if BoardConfiguration.ecmSubnet.contains(board) { return BoardConfiguration.ecmSubnet }
        return Subnet(containing: board, prefixLength: board.isIPv6 ? 64 : 24)
    }
}
