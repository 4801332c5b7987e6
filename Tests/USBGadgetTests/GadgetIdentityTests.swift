import Testing

@testable import USBGadget

@Suite struct GadgetIdentityTests {
    static let machineText = "0123456789abcdef0123456789abcdef\n"

    @Test(arguments: [
        ("0123456789abcdef0123456789abcdef\n", true),
        ("0123456789ABCDEF0123456789ABCDEF", true),
        ("0123456789abcdef0123456789abcdef \r\n", true),
        ("uninitialized\n", false),
        ("", false),
        ("0123456789abcdef0123456789abcde\n", false),
        ("0123456789abcdef0123456789abcdef0\n", false),
        ("0123456789abcdef-123456789abcdef\n", false),
        ("00000000000000000000000000000000\n", false),
    ])
    func machineIDParsing(text: String, valid: Bool) {
        #expect((MachineID(fileText: text) != nil) == valid)
    }

    /// Expected values from Python: hmac.new(machine_id_bytes, label, sha256).
    @Test func derivesKnownValues() throws {
        let identity = GadgetIdentity(machineID: try #require(MachineID(fileText: Self.machineText)))
        #expect(identity.serialNumber == "8FFA26AE04B1DBE4")
        #expect(identity.deviceAddress.description == "02:a1:de:a6:08:45")
        #expect(identity.hostAddress.description == "06:a1:de:7d:a1:f8")
    }

    @Test func addressesAreLocallyAdministeredUnicastWithTheirPrefix() throws {
        for text in [Self.machineText, "3d1219c7c4c5404aaa1f6d2a48adfda4", "ffffffffffffffffffffffffffffffff"] {
            let identity = GadgetIdentity(machineID: try #require(MachineID(fileText: text)))
            for (address, prefix) in [
                (identity.deviceAddress, GadgetIdentity.deviceAddressPrefix),
                (identity.hostAddress, GadgetIdentity.hostAddressPrefix),
            ] {
                #expect(address.isLocallyAdministered && address.isUnicast)
                #expect(Array(address.bytes.prefix(3)) == prefix)
            }
            #expect(identity.deviceAddress != identity.hostAddress)
            #expect(identity.serialNumber.count == 16)
            #expect(identity.serialNumber.allSatisfy { $0.isHexDigit && !$0.isLowercase })
        }
    }

    @Test func differentMachinesDifferAndTheIdIsNotShown() throws {
        let one = GadgetIdentity(machineID: try #require(MachineID(fileText: Self.machineText)))
        let other = GadgetIdentity(machineID: try #require(MachineID(fileText: "3d1219c7c4c5404aaa1f6d2a48adfda4")))
        #expect(one.serialNumber != other.serialNumber)
        #expect(one.deviceAddress != other.deviceAddress)
        #expect(one.hostAddress != other.hostAddress)
        #expect(!Self.machineText.uppercased().contains(one.serialNumber))
    }

    @Test func macAddressNeedsSixBytes() {
        #expect(MACAddress(bytes: [1, 2, 3, 4, 5]) == nil)
        #expect(MACAddress(bytes: [0x02, 0, 0, 0x42, 0, 0x0f])?.description == "02:00:00:42:00:0f")
        #expect(MACAddress(bytes: [0x01, 0, 0, 0, 0, 0])?.isUnicast == false)
        #expect(MACAddress(bytes: [0x00, 0, 0, 0, 0, 0])?.isLocallyAdministered == false)
    }
}
