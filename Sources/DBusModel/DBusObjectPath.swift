/// A D-Bus object path such as `/org/bluez/hci0`.
///
/// Literals are not checked when written (a literal cannot throw); every path is validated before it reaches
/// libdbus, which aborts the process on an invalid one.
package struct DBusObjectPath: Sendable, Hashable, Comparable, ExpressibleByStringLiteral, CustomStringConvertible {
    package let rawValue: String

    /// Wraps `rawValue` without checking it: see `isValid` and `init(validating:)`.
    package init(_ rawValue: String) {
        self.rawValue = rawValue
    }

    package init(stringLiteral value: String) {
        self.init(value)
    }

    package init(validating rawValue: String) throws(DBusError) {
        self.init(rawValue)
        guard isValid else {
            throw .invalidArgs("invalid object path '\(rawValue)': '/' then elements of [A-Za-z0-9_] separated by '/'")
        }
    }

    package static let root = DBusObjectPath("/")

    package var description: String { rawValue }

    package static func < (lhs: DBusObjectPath, rhs: DBusObjectPath) -> Bool {
        lhs.rawValue < rhs.rawValue
    }

    /// The D-Bus rules: starts with '/', elements of `[A-Za-z0-9_]` separated by single '/', no trailing '/'
    /// except for the root path itself.
    package var isValid: Bool {
        let bytes = Array(rawValue.utf8)
        guard bytes.first == UInt8(ascii: "/") else { return false }
        if bytes.count == 1 { return true }
        guard bytes.last != UInt8(ascii: "/") else { return false }
        var previousWasSlash = false
        for byte in bytes {
            if byte == UInt8(ascii: "/") {
                if previousWasSlash { return false }
                previousWasSlash = true
            } else {
                guard Self.isElementByte(byte) else { return false }
                previousWasSlash = false
            }
        }
        return true
    }

    /// This path with `element` added, e.g. `/org/bluez` + `hci0`.
    package func appending(_ element: String) -> DBusObjectPath {
        rawValue == "/" ? DBusObjectPath("/" + element) : DBusObjectPath(rawValue + "/" + element)
    }

    /// Whether `self` lies strictly below `ancestor`.
    package func isDescendant(of ancestor: DBusObjectPath) -> Bool {
        if ancestor.rawValue == "/" { return rawValue != "/" && rawValue.hasPrefix("/") }
        return rawValue.hasPrefix(ancestor.rawValue + "/")
    }

    /// The path one level up; nil for the root.
    package var parent: DBusObjectPath? {
        guard rawValue != "/", let slash = rawValue.lastIndex(of: "/") else { return nil }
        return slash == rawValue.startIndex ? .root : DBusObjectPath(String(rawValue[..<slash]))
    }

    private static func isElementByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "_"):
            true
        default:
            false
        }
    }
}
