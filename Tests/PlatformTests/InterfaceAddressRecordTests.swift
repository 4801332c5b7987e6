import NetworkAddress
import Testing

@testable import Platform

/// getifaddrs on this host: every namespace has the loopback interface, with 127.0.0.1/8 on it.
@Suite struct InterfaceAddressRecordTests {
    @Test func loopbackIsListedUpWithItsAddressAndPrefix() throws {
        let records = try #require(InterfaceAddressRecord.readAll())
        let loopback = records.filter { $0.name == "lo" }
        #expect(!loopback.isEmpty)
        #expect(loopback.allSatisfy { $0.isUp })
        #expect(loopback.contains { $0.address == IPAddress(v4: 127, 0, 0, 1) && $0.prefixLength == 8 })
    }

    @Test func aRecordWithoutAnIPAddressHasNoPrefix() throws {
        // The AF_PACKET record of each link: there for every interface, addressed or not.
        let records = try #require(InterfaceAddressRecord.readAll())
        #expect(records.filter { $0.address == nil }.allSatisfy { $0.prefixLength == 0 })
    }
}
