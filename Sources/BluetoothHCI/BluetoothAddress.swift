internal import CBluetooth

/// A 6-byte Bluetooth device address. Parsing and formatting go through libbluetooth's
/// `bachk`/`str2ba`/`ba2str` so they agree with BlueZ's own tools.
///
/// This module is the only one that links libbluetooth (GPL-2.0-or-later); see README "Licences".
package struct BluetoothAddress: Hashable, Sendable, CustomStringConvertible {
    /// Most significant byte first, as written ("AA:BB:CC:DD:EE:FF" → [0xAA, …, 0xFF]).
    package let bytes: [UInt8]

    package init?(bytes: [UInt8]) {
        guard bytes.count == 6 else { return nil }
        self.bytes = bytes
    }

    /// Parses "AA:BB:CC:DD:EE:FF" (either case); nil for anything else.
    package init?(_ text: String) {
        guard bachk(text) == 0 else { return nil }
        var raw = bdaddr_t()
        guard str2ba(text, &raw) == 0 else { return nil }
        // bdaddr_t stores the address little-endian (least significant byte first).
        let b = raw.b
        self.bytes = [b.5, b.4, b.3, b.2, b.1, b.0]
    }

    /// Upper-case colon form, formatted by libbluetooth.
    package var description: String {
        var raw = bdaddr_t()
        raw.b = (bytes[5], bytes[4], bytes[3], bytes[2], bytes[1], bytes[0])
        var buffer = [CChar](repeating: 0, count: 18)
        _ = ba2str(&raw, &buffer)
        let length = buffer.firstIndex(of: 0) ?? buffer.count
        return String(decoding: buffer[..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// The last four hex digits, used in the advertised local name `Aiden-XXXX`.
    package var shortSuffix: String {
        let text = description
        return String(text.suffix(5).filter { $0 != ":" })
    }
}
