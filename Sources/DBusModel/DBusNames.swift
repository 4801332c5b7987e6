/// Name checks by the D-Bus specification, written to accept exactly what libdbus's `dbus_validate_*`
/// functions accept (tests compare the two), so a name checked here never makes libdbus abort.
package enum DBusNames {
    /// The specification's limit for every kind of name, in bytes.
    static let maximumLength = 255

    /// A unique (`:1.42`) or well-known (`org.bluez`) bus name.
    ///
    /// Like libdbus, a unique name is checked only for its characters and empty elements (`:` and `:1` pass);
    /// a well-known name needs two elements, none starting with a digit.
    package static func isValidBusName(_ name: String) -> Bool {
        let bytes = Array(name.utf8)
        guard !bytes.isEmpty, bytes.count <= maximumLength else { return false }
        if bytes[0] == UInt8(ascii: ":") {
            return elements(bytes.dropFirst(), minimum: 1, allowEmptyFirst: true) { byte, _ in
                isBusNameCharacter(byte)
            }
        }
        return elements(bytes[...], minimum: 2) { byte, first in
            first ? isInitialNameCharacter(byte) || byte == UInt8(ascii: "-") : isBusNameCharacter(byte)
        }
    }

    /// An interface name such as `org.bluez.GattManager1`.
    package static func isValidInterface(_ name: String) -> Bool {
        isValidDottedName(name)
    }

    /// A method or signal name such as `RegisterApplication`: no dots.
    package static func isValidMember(_ name: String) -> Bool {
        let bytes = Array(name.utf8)
        guard let first = bytes.first, bytes.count <= maximumLength, isInitialNameCharacter(first) else {
            return false
        }
        return bytes.dropFirst().allSatisfy(isNameCharacter)
    }

    /// An error name such as `org.bluez.Error.Failed`: the same rules as an interface name.
    package static func isValidErrorName(_ name: String) -> Bool {
        isValidDottedName(name)
    }

    private static func isValidDottedName(_ name: String) -> Bool {
        let bytes = Array(name.utf8)
        guard !bytes.isEmpty, bytes.count <= maximumLength else { return false }
        return elements(bytes[...], minimum: 2) { byte, first in
            first ? isInitialNameCharacter(byte) : isNameCharacter(byte)
        }
    }

    /// Splits at dots and checks every byte with `valid(byte, isFirstOfElement)`. Elements are never empty,
    /// except the very first one when `allowEmptyFirst` (a unique name's `:.1`, which libdbus accepts).
    private static func elements(
        _ bytes: ArraySlice<UInt8>, minimum: Int, allowEmptyFirst: Bool = false,
        _ valid: (UInt8, Bool) -> Bool
    ) -> Bool {
        var count = 1
        var elementLength = 0
        for byte in bytes {
            if byte == UInt8(ascii: ".") {
                guard elementLength > 0 || (count == 1 && allowEmptyFirst) else { return false }
                count += 1
                elementLength = 0
                continue
            }
            guard valid(byte, elementLength == 0) else { return false }
            elementLength += 1
        }
        if count > 1 && elementLength == 0 { return false }
        return count >= minimum
    }

    /// `[A-Za-z_]`: what may start an interface, member or well-known bus name element.
    private static func isInitialNameCharacter(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) || (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
            || byte == UInt8(ascii: "_")
    }

    /// `[A-Za-z0-9_]`.
    private static func isNameCharacter(_ byte: UInt8) -> Bool {
        isInitialNameCharacter(byte) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
    }

    /// `[A-Za-z0-9_-]`: bus names also allow '-'.
    private static func isBusNameCharacter(_ byte: UInt8) -> Bool {
        isNameCharacter(byte) || byte == UInt8(ascii: "-")
    }
}
