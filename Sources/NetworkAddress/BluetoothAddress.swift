/// A Bluetooth device address (BD_ADDR): the one rule for every address the programs read or write, from the
/// configuration, the phone's pairing request, the board's status answer, bluetoothd's properties and object
/// paths, and the board identity in the advertisement. Two rules would let one side accept what the other
/// refuses, and the pairing window's "only the named phone" check depends on this one.
///
/// Text is exactly six pairs of ASCII hex digits separated by `:`, 17 bytes. Either case is read; upper case is
/// written, as bluetoothd writes `Address` and its device paths, so two spellings of one address are one value.
/// Nothing else is an address: no sign (`UInt8("+F", radix: 16)` reads 15), no fullwidth or other non-ASCII
/// digit (`Character.isHexDigit` takes them), no whitespace, no other separator, no other length.
package struct BluetoothAddress: Hashable, Sendable, CustomStringConvertible {
    /// Most significant byte first, as written ("AA:BB:CC:DD:EE:FF" → [0xAA, …, 0xFF]); always six.
    package let bytes: [UInt8]

    /// Six bytes, most significant first; nil for any other count.
    package init?(bytes: [UInt8]) {
        guard bytes.count == 6 else { return nil }
        self.bytes = bytes
    }

    /// `AA:BB:CC:DD:EE:FF`, in either case; nil for anything else.
    package init?(_ text: some StringProtocol) {
        guard let bytes = EUI48Text.bytes(text.utf8, separator: UInt8(ascii: ":")) else { return nil }
        self.bytes = bytes
    }

    /// `dev_AA_BB_CC_DD_EE_FF`, the last component of bluetoothd's object path for the device (either case,
    /// like the text form); nil for anything else, a path that goes on (`…/service000a`) included.
    package init?(devicePathComponent component: some StringProtocol) {
        let utf8 = Array(component.utf8)
        guard utf8.starts(with: Self.devicePrefix.utf8),
            let bytes = EUI48Text.bytes(utf8.dropFirst(Self.devicePrefix.utf8.count), separator: UInt8(ascii: "_"))
        else { return nil }
        self.bytes = bytes
    }

    /// Upper case, colon-separated: `AA:BB:CC:DD:EE:FF`.
    package var description: String { hex(separator: ":") }

    /// `dev_AA_BB_CC_DD_EE_FF`: what bluetoothd appends to the adapter's path (`/org/bluez/hci0/…`) for it.
    package var devicePathComponent: String { Self.devicePrefix + hex(separator: "_") }

    /// The last four hex digits, upper case (`EEFF`): the board's advertised name is `Aiden-` and these.
    package var shortSuffix: String { bytes.suffix(2).map(Self.hexPair).joined() }

    private static let devicePrefix = "dev_"
    /// The digits written.
    private static let hexDigits: [UInt8] = Array("0123456789ABCDEF".utf8)

    private func hex(separator: String) -> String { bytes.map(Self.hexPair).joined(separator: separator) }

    private static func hexPair(_ byte: UInt8) -> String {
        String(decoding: [hexDigits[Int(byte >> 4)], hexDigits[Int(byte & 0x0F)]], as: UTF8.self)
    }
}
