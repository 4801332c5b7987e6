import NetworkAddress

/// A 48-bit Ethernet address, written the way configfs and `ip link` print it (`02:a1:de:12:34:56`).
package struct MACAddress: Hashable, Sendable, CustomStringConvertible {
    package let bytes: [UInt8]

    /// Nil unless exactly six bytes.
    package init?(bytes: [UInt8]) {
        guard bytes.count == 6 else { return nil }
        self.bytes = bytes
    }

    /// `02:a1:de:12:34:56`, in either case (`EUI48Text`: ASCII hex digits only); nil for anything else.
    package init?(_ text: some StringProtocol) {
        guard let bytes = EUI48Text.bytes(text.utf8, separator: UInt8(ascii: ":")) else { return nil }
        self.bytes = bytes
    }

    /// Set by whoever assigns the address rather than by a manufacturer's registry (bit 1 of byte 0).
    package var isLocallyAdministered: Bool { bytes[0] & 0x02 != 0 }
    /// An individual station, not a group (bit 0 of byte 0 clear).
    package var isUnicast: Bool { bytes[0] & 0x01 == 0 }

    package var description: String { bytes.map(\.lowercaseHex).joined(separator: ":") }
}

extension UInt8 {
    /// Two lower-case hex digits.
    var lowercaseHex: String {
        let digits = Array("0123456789abcdef")
        return String([digits[Int(self >> 4)], digits[Int(self & 0x0f)]])
    }
}
