/// The 128-bit id in /etc/machine-id: stable for the life of the installation, so everything
/// derived from it (USB serial number, ECM MAC addresses) is too.
package struct MachineID: Hashable, Sendable {
    package let bytes: [UInt8]

    /// Parses the file's text: 32 hex digits, optionally followed by a newline (machine-id(5)).
    /// Returns nil for anything else, including "uninitialized".
    package init?(fileText text: String) {
        var trimmed = Substring(text)
        while let last = trimmed.last, last.isNewline || last == " " { trimmed.removeLast() }
        let digits = Array(trimmed.utf8)
        guard digits.count == 32 else { return nil }
        var bytes: [UInt8] = []
        for index in stride(from: 0, to: 32, by: 2) {
            guard let high = digits[index].hexValue, let low = digits[index + 1].hexValue else { return nil }
            bytes.append(high << 4 | low)
        }
        guard bytes.contains(where: { $0 != 0 }) else { return nil }
        self.bytes = bytes
    }
}

extension UInt8 {
    /// The value of an ASCII hex digit (either case).
    fileprivate var hexValue: UInt8? {
        switch self {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): self - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): self - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): self - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
