import Testing

@testable import NetworkAddress

@Suite struct SubnetTests {
    @Test(arguments: [
        ("192.168.42.0/24", "192.168.42.0", true), ("192.168.42.0/24", "192.168.42.255", true),
        ("192.168.42.0/24", "192.168.43.0", false), ("192.168.42.0/24", "192.168.41.255", false),
        ("192.168.42.0/24", "::ffff:192.168.42.2", true), ("192.168.42.0/24", "::ffff:192.168.43.2", false),
        ("192.168.42.0/24", "::c0a8:2a02", false), ("0.0.0.0/0", "8.8.8.8", true), ("0.0.0.0/0", "::1", false),
        ("10.0.0.1/32", "10.0.0.1", true), ("10.0.0.1/32", "10.0.0.2", false),
        ("fd00::/8", "fd12:3456::1", true), ("fd00::/8", "fe00::1", false), ("::/0", "2001:db8::1", true),
        ("2001:db8::/64", "2001:db8::ffff:ffff", true), ("2001:db8::/64", "2001:db8:0:1::", false),
        ("2001:db8::/96", "2001:db8::1:2", true), ("2001:db8::1/128", "2001:db8::1", true),
        ("2001:db8::1/128", "2001:db8::2", false), ("::ffff:0:0/96", "::ffff:1.2.3.4", true),
    ])
    func containment(subnet: String, address: String, expected: Bool) throws {
        let block = try Subnet(subnet)
        #expect(block.contains(try #require(IPAddress(address))) == expected)
    }

    @Test(arguments: [
        ("192.168.42.0", "expected address/prefix"), ("192.168.42.0/33", "prefix length must be 0...32"),
        ("192.168.42.0/-1", "prefix length"), ("192.168.42.1/24", "did you mean 192.168.42.0/24?"),
        ("example.com/24", "is not an IP address"), ("fd00::/129", "0...128"), ("192.168.42.0/24/1", "expected"),
        ("192.168.42.0/", "prefix length"),
    ])
    func rejectsMalformedBlocksWithAReason(input: String, reasonFragment: String) {
        #expect {
            try Subnet(input)
        } throws: { error in
            let parseError = error as? AddressParseError
            return parseError?.input == input && parseError?.reason.contains(reasonFragment) == true
        }
    }

    @Test func describesItselfCanonically() throws {
        #expect(try Subnet("FD00:0::/8").description == "fd00::/8")
        #expect(try Subnet("192.168.42.0/24").description == "192.168.42.0/24")
    }

    /// An interface's address and netmask name the block around it; out-of-range lengths are clamped.
    @Test(arguments: [
        ("192.168.42.2", 24, "192.168.42.0/24"), ("192.168.42.129", 25, "192.168.42.128/25"),
        ("10.1.2.3", 0, "0.0.0.0/0"), ("10.1.2.3", 32, "10.1.2.3/32"), ("10.1.2.3", 40, "10.1.2.3/32"),
        ("fd00::1:2", 64, "fd00::/64"), ("2001:db8::1", 200, "2001:db8::1/128"), ("2001:db8::1", -3, "::/0"),
    ])
    func blockAroundAnAddress(address: String, prefixLength: Int, expected: String) throws {
        let block = Subnet(containing: try #require(IPAddress(address)), prefixLength: prefixLength)
        #expect(block.description == expected)
        #expect(block.contains(try #require(IPAddress(address))))
    }
}
