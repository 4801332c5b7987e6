import Testing

@testable import NetworkAddress

@Suite struct IPAddressTests {
    @Test(arguments: [
        ("127.0.0.1", "127.0.0.1"), ("0.0.0.0", "0.0.0.0"), ("255.255.255.255", "255.255.255.255"),
        ("::1", "::1"), ("::", "::"), ("FE80::1", "fe80::1"), ("2001:db8:0:0:1:0:0:1", "2001:db8::1:0:0:1"),
        ("2001:0db8:0000:0000:0000:0000:0000:0001", "2001:db8::1"), ("::ffff:192.168.42.2", "::ffff:192.168.42.2"),
        ("::ffff:c0a8:2a02", "::ffff:192.168.42.2"), ("1:2:3:4:5:6:7:8", "1:2:3:4:5:6:7:8"), ("1::", "1::"),
    ])
    func parsesAndPrintsCanonically(input: String, canonical: String) throws {
        let address = try #require(IPAddress(input))
        #expect(address.description == canonical)
        #expect(IPAddress(canonical) == address)
    }

    @Test(arguments: [
        "", "1.2.3", "1.2.3.4.5", "256.1.1.1", "01.2.3.4", "1.2.3.-4", " 1.2.3.4", "1.2.3.4 ", "a.b.c.d",
        ":::", "1:::2", "1::2::3", "12345::", "1:2:3:4:5:6:7:8:9", "1:2:3:4:5:6:7", "fe80::1%eth0",
        "::ffff:1.2.3", "g::1", "1:2:3:4:5:6:7::8", "localhost", "[::1]",
    ])
    func rejectsAnythingButOneLiteral(input: String) {
        #expect(IPAddress(input) == nil, "\(input) should not parse")
    }

    @Test func loopbackCoversTheWholeBlockAndMappedForms() throws {
        for text in ["127.0.0.1", "127.255.0.9", "::1", "::ffff:127.0.0.1"] {
            #expect(try #require(IPAddress(text)).isLoopback, "\(text)")
        }
        for text in ["128.0.0.1", "::2", "::ffff:10.0.0.1", "0.0.0.0", "::"] {
            #expect(try #require(IPAddress(text)).isLoopback == false, "\(text)")
        }
    }

    @Test func mappedIPv6IsJudgedAsIPv4() throws {
        let mapped = try #require(IPAddress("::ffff:192.168.42.7"))
        #expect(mapped.mappedIPv4 == IPAddress(v4: 192, 168, 42, 7))
        #expect(mapped.unmapped == IPAddress(v4: 192, 168, 42, 7))
        // IPv4-compatible (deprecated) and NAT64 forms are not mappings.
        #expect(try #require(IPAddress("::192.168.42.7")).mappedIPv4 == nil)
        #expect(try #require(IPAddress("64:ff9b::192.168.42.7")).mappedIPv4 == nil)
    }

    @Test func bytesRoundTrip() throws {
        for text in ["192.168.42.1", "::1", "2001:db8::ff00:42:8329", "::ffff:10.1.2.3"] {
            let address = try #require(IPAddress(text))
            #expect(IPAddress(bytes: address.bytes) == address)
        }
        #expect(IPAddress(v4: 10, 0, 0, 1).bytes == [10, 0, 0, 1])
        #expect(IPAddress(bytes: [1, 2, 3]) == nil)
    }
}
