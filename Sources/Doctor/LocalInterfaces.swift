import NetworkAddress
import Platform

/// The host's network interfaces and their addresses (getifaddrs): whether an address is really here, on
/// which interface, and whether that interface is up with carrier. Read-only; never opens a socket.
package struct LocalInterfaces: Sendable {
    /// One address on one interface.
    package struct Entry: Sendable, Equatable {
        package var name: String
        package var address: IPAddress
        package var prefixLength: Int
        package var isUp: Bool
        package var isRunning: Bool

        package init(name: String, address: IPAddress, prefixLength: Int, isUp: Bool, isRunning: Bool) {
            self.name = name
            self.address = address
            self.prefixLength = prefixLength
            self.isUp = isUp
            self.isRunning = isRunning
        }

        /// The block the address and its prefix describe (192.168.42.0/24 for 192.168.42.2/24).
        package var subnet: Subnet { Subnet(containing: address, prefixLength: prefixLength) }
    }

    /// One interface, with or without addresses.
    package struct Link: Sendable, Equatable {
        package var name: String
        /// IFF_UP: configured up.
        package var isUp: Bool
        /// IFF_RUNNING: up with carrier (operstate up).
        package var isRunning: Bool

        package init(name: String, isUp: Bool, isRunning: Bool) {
            self.name = name
            self.isUp = isUp
            self.isRunning = isRunning
        }
    }

    package var entries: [Entry]
    package var links: [Link]

    /// `links` defaults to the interfaces that `entries` name.
    package init(entries: [Entry], links: [Link]? = nil) {
        self.entries = entries
        self.links =
            links
            ?? entries.reduce(into: []) { links, entry in
                if !links.contains(where: { $0.name == entry.name }) {
                    links.append(Link(name: entry.name, isUp: entry.isUp, isRunning: entry.isRunning))
                }
            }
    }

    /// The current interfaces and addresses of this network namespace; none when they cannot be read.
    package static func current() -> LocalInterfaces {
        read() ?? LocalInterfaces(entries: [], links: [])
    }

    /// The current interfaces and addresses of this network namespace; nil when getifaddrs(3) fails (no memory,
    /// no netlink socket), for the checks that must not take "no addresses" for "cannot tell".
    package static func read() -> LocalInterfaces? {
        guard let records = InterfaceAddressRecord.readAll() else { return nil }
        var entries: [Entry] = []
        var links: [Link] = []
        for record in records {
            // Every interface has an AF_PACKET record, addressed or not.
            if !links.contains(where: { $0.name == record.name }) {
                links.append(Link(name: record.name, isUp: record.isUp, isRunning: record.isRunning))
            }
            guard let address = record.address else { continue }
            entries.append(
                Entry(
                    name: record.name, address: address, prefixLength: record.prefixLength, isUp: record.isUp,
                    isRunning: record.isRunning))
        }
        return LocalInterfaces(entries: entries, links: links)
    }

    package func interface(holding address: IPAddress) -> Entry? {
        entries.first { $0.address == address.unmapped || $0.address == address }
    }

    package func link(named name: String) -> Link? {
        links.first { $0.name == name }
    }

    /// The addresses on interface `name`.
    package func entries(on name: String) -> [Entry] {
        entries.filter { $0.name == name }
    }
}
