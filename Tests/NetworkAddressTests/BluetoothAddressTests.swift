import Testing

@testable import NetworkAddress

/// The one Bluetooth address rule: six pairs of ASCII hex digits, either case read, upper case written, and
/// nothing that only looks like one.
@Suite struct BluetoothAddressTests {
    @Test(
        arguments: [
            ("00:AA:01:00:12:34", [0x00, 0xAA, 0x01, 0x00, 0x12, 0x34], "00:AA:01:00:12:34"),
            ("00:aa:01:00:12:34", [0x00, 0xAA, 0x01, 0x00, 0x12, 0x34], "00:AA:01:00:12:34"),
            ("aB:cD:eF:Ab:Cd:Ef", [0xAB, 0xCD, 0xEF, 0xAB, 0xCD, 0xEF], "AB:CD:EF:AB:CD:EF"),
            ("00:00:00:00:00:00", [0, 0, 0, 0, 0, 0], "00:00:00:00:00:00"),
            ("FF:FF:FF:FF:FF:FF", [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF], "FF:FF:FF:FF:FF:FF"),
            ("09:af:AF:90:fa:FA", [0x09, 0xAF, 0xAF, 0x90, 0xFA, 0xFA], "09:AF:AF:90:FA:FA"),
        ] as [(String, [UInt8], String)])
    func readsEitherCaseAndWritesUpperCase(text: String, bytes: [UInt8], written: String) throws {
        let address = try #require(BluetoothAddress(text))
        #expect(address.bytes == bytes)
        #expect(address.description == written)
        #expect(BluetoothAddress(written) == address)
        #expect(BluetoothAddress(bytes: bytes) == address)
    }

    @Test(arguments: [
        // Signs and prefixes that integer parsing takes.
        "+F:AA:01:00:12:34", "00:AA:01:00:12:+4", "-1:AA:01:00:12:34", "0x:AA:01:00:12:34",
        // Digits outside ASCII: fullwidth (Character.isHexDigit takes them), Arabic-Indic, and a combining mark.
        "００:AA:01:00:12:34", "00:AA:01:00:12:3４", "00:ＡＡ:01:00:12:34", "٠٠:AA:01:00:12:34", "00:AA:01:00:12:34\u{301}",
        // Whitespace and control characters anywhere.
        " 00:AA:01:00:12:34", "00:AA:01:00:12:34 ", "00:AA:01:00:12:34\n", "00: A:01:00:12:34", "00:AA:01:00:12:\t4",
        "00:AA:01:00:12:34\0", "00:AA\0:01:00:12",
        // Wrong lengths and group shapes.
        "", "00", "00:AA:01:00:12", "00:AA:01:00:12:34:56", "0:AA:01:00:12:34", "000:AA:01:00:12:3",
        "00:AA:01:00:12:345", "00:AA:01:00:12:34:", ":00:AA:01:00:12:34", "00:AA::01:00:12:34",
        // Other separators and letters past F.
        "00-AA-01-00-12-34", "00_AA_01_00_12_34", "00AA01001234", "00.AA.01.00.12.34", "00:AA:01:00:12:3G",
        "zz:1a:7d:da:71:13", "00\u{FF1A}AA\u{FF1A}01\u{FF1A}00\u{FF1A}12\u{FF1A}34",
        // Things that name something else.
        "../../org/bluez", "dev_00_AA_01_00_12_34", "/org/bluez/hci0/dev_00_AA_01_00_12_34",
    ])
    func anythingElseIsNoAddress(text: String) {
        #expect(BluetoothAddress(text) == nil)
    }

    @Test func onlySixBytesMakeAnAddress() {
        #expect(BluetoothAddress(bytes: []) == nil)
        #expect(BluetoothAddress(bytes: [1, 2, 3, 4, 5]) == nil)
        #expect(BluetoothAddress(bytes: [1, 2, 3, 4, 5, 6, 7]) == nil)
        #expect(BluetoothAddress(bytes: [1, 2, 3, 4, 5, 6])?.description == "01:02:03:04:05:06")
    }

    @Test func readsFromASubstring() {
        let line = "board 00:aa:01:00:12:34 bonded"
        let word = line.split(separator: " ")[1]
        #expect(BluetoothAddress(word)?.description == "00:AA:01:00:12:34")
    }

    @Test(arguments: [
        ("00:AA:01:00:12:34", "dev_00_AA_01_00_12_34"), ("00:aa:01:00:99:99", "dev_00_AA_01_00_99_99"),
        ("0a:0b:0c:0d:0e:0f", "dev_0A_0B_0C_0D_0E_0F"),
    ])
    func namesBluetoothdsDevicePathComponentBothWays(text: String, component: String) throws {
        let address = try #require(BluetoothAddress(text))
        #expect(address.devicePathComponent == component)
        #expect(BluetoothAddress(devicePathComponent: component) == address)
        #expect(BluetoothAddress(devicePathComponent: component.lowercased()) == address)
    }

    @Test(arguments: [
        "", "dev_", "00_AA_01_00_12_34", "DEV_00_AA_01_00_12_34", "dev-00_AA_01_00_12_34", "dev_00:AA:01:00:12:34",
        "dev_00_AA_01_00_12", "dev_00_AA_01_00_12_34_56", "dev_00_AA_01_00_12_34/service000a", "dev_+F_AA_01_00_12_34",
        "dev_００_AA_01_00_12_34", " dev_00_AA_01_00_12_34", "dev_00_AA_01_00_12_34\n",
        "/org/bluez/hci0/dev_00_AA_01_00_12_34",
    ])
    func anyOtherPathComponentNamesNoDevice(component: String) {
        #expect(BluetoothAddress(devicePathComponent: component) == nil)
    }

    @Test func theShortSuffixIsTheLastFourDigits() throws {
        #expect(try #require(BluetoothAddress("00:aa:01:00:0b:0c")).shortSuffix == "0B0C")
        #expect(try #require(BluetoothAddress("00:AA:01:00:12:34")).shortSuffix == "1234")
    }

    /// Once `CLibrarySmokeTests.libbluetoothParsesAndFormatsAddresses`, when libbluetooth's `str2ba` and `ba2str`
    /// held the rule: the pure type answers the same.
    @Test func answersAsLibbluetoothDid() throws {
        let address = try #require(BluetoothAddress("00:1a:7d:da:71:13"))
        #expect(address.bytes == [0x00, 0x1A, 0x7D, 0xDA, 0x71, 0x13])
        #expect(address.description == "00:1A:7D:DA:71:13")
        #expect(address.shortSuffix == "7113")
        #expect(BluetoothAddress("00:1a:7d:da:71") == nil)
        #expect(BluetoothAddress("zz:1a:7d:da:71:13") == nil)
    }

    /// Once `BoardBluetoothAnswerTests.anAddressThatIsNotOneIsNone`'s second half, when the phone held its own
    /// rule in `BoardBluetoothAnswer.bluetoothAddress`.
    @Test(arguments: [
        "00:AA:01:00:12", "00:AA:01:00:12:34:56", "0:AA:01:00:12:34", "00:AA:01:00:12:3G", "../../org/bluez",
        "00:AA:01:00:12:34\n", "", "００:AA:01:00:12:34",
    ])
    func theBoardsAnswerCasesAreNoAddress(address: String) {
        #expect(BluetoothAddress(address) == nil)
    }
}
