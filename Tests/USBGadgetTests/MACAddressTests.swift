import Testing

@testable import USBGadget

/// The USB link's MAC addresses as configfs writes them, read by the one rule for 48-bit address text
/// (`EUI48Text`, shared with Bluetooth addresses): a gadget status shows only what that rule accepts.
@Suite struct MACAddressTests {
    @Test(
        arguments: [
            ("02:a1:de:12:34:56", [0x02, 0xA1, 0xDE, 0x12, 0x34, 0x56]),
            ("02:A1:DE:12:34:56", [0x02, 0xA1, 0xDE, 0x12, 0x34, 0x56]),
            ("ff:ff:ff:ff:ff:ff", [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF]),
        ] as [(String, [UInt8])])
    func readsSixASCIIHexPairs(_ text: String, _ bytes: [UInt8]) {
        #expect(MACAddress(text)?.bytes == bytes)
        #expect(MACAddress(text)?.description == text.lowercased(), "written as configfs writes it")
        #expect(GadgetController.isMACText(text))
    }

    @Test(arguments: [
        "", "02:a1:de:12:34", "02:a1:de:12:34:56:78", "02-a1-de-12-34-56", "02:a1:de:12:34:5g",
        "+2:a1:de:12:34:56", "02:a1:de:12:34:+F", " 2:a1:de:12:34:56", "02:a1:de:12:34:56\n",
        "０２:a1:de:12:34:56",  // fullwidth digits: Character.isHexDigit takes them
        "02:a1:de:12:34:٥٦",  // Arabic-Indic digits
        "2:a1:de:12:34:567",
    ])
    func refusesEverythingElse(_ text: String) {
        #expect(MACAddress(text) == nil, "\(text.debugDescription)")
        #expect(!GadgetController.isMACText(text), "\(text.debugDescription)")
    }
}
