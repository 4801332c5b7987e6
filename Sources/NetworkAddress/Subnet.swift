/// An address block in CIDR notation, e.g. `192.168.42.0/24` or `fd00::/8`.
///
/// An IPv4 block also matches IPv4-mapped IPv6 peers (`::ffff:192.168.42.2`), because a
/// dual-stack listener reports IPv4 clients that way.
package struct Subnet: Hashable, Sendable, CustomStringConvertible {
    package let network: IPAddress
    package let prefixLength: Int

    /// Parses "address/prefix". Host bits must be zero so a typo like `192.168.42.1/24` is caught.
    package init(_ text: some StringProtocol) throws(AddressParseError) {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2 else {
            throw AddressParseError(input: String(text), reason: "expected address/prefix, e.g. 192.168.42.0/24")
        }
        guard let address = IPAddress(parts[0]) else {
            throw AddressParseError(input: String(text), reason: "'\(parts[0])' is not an IP address")
        }
        let maximum = address.isIPv6 ? 128 : 32
        guard parts[1].allSatisfy({ $0.isNumber }), let length = Int(parts[1]), (0...maximum).contains(length) else {
            throw AddressParseError(input: String(text), reason: "prefix length must be 0...\(maximum)")
        }
        let subnet = Subnet(uncheckedNetwork: address, prefixLength: length)
        guard subnet.masked(address) == address else {
            throw AddressParseError(
                input: String(text),
                reason: "host bits are set; did you mean \(subnet.masked(address))/\(length)?")
        }
        self = subnet
    }

    /// The block of `prefixLength` bits around `address` (192.168.42.0/24 for 192.168.42.2 and 24): what an
    /// interface's address and netmask describe. The length is clamped to the family's 0...32 or 0...128.
    package init(containing address: IPAddress, prefixLength: Int) {
        let length = min(max(prefixLength, 0), address.isIPv6 ? 128 : 32)
        let block = Subnet(uncheckedNetwork: address, prefixLength: length)
        self.init(uncheckedNetwork: block.masked(address), prefixLength: length)
    }

    private init(uncheckedNetwork: IPAddress, prefixLength: Int) {
        self.network = uncheckedNetwork
        self.prefixLength = prefixLength
    }

    /// Whether `address` lies inside this block (IPv4-mapped IPv6 judged as IPv4).
    package func contains(_ address: IPAddress) -> Bool {
        let candidate = network.isIPv6 ? address : address.unmapped
        guard candidate.isIPv6 == network.isIPv6 else { return false }
        return masked(candidate) == network
    }

    package var description: String { "\(network)/\(prefixLength)" }

    private func masked(_ address: IPAddress) -> IPAddress {
        switch address {
        case let .v4(value):
            let mask: UInt32 = prefixLength == 0 ? 0 : ~UInt32(0) << UInt32(32 - prefixLength)
            return .v4(value & mask)
        case let .v6(high, low):
            let highMask: UInt64 =
                prefixLength >= 64 ? ~0 : (prefixLength == 0 ? 0 : ~UInt64(0) << UInt64(64 - prefixLength))
            let lowBits = max(0, prefixLength - 64)
            let lowMask: UInt64 = lowBits == 0 ? 0 : (lowBits == 64 ? ~0 : ~UInt64(0) << UInt64(64 - lowBits))
            return .v6(high: high & highMask, low: low & lowMask)
        }
    }
}
