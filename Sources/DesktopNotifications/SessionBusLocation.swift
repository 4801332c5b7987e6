/// Where the user's session bus is, found the way libdbus and sd-bus find it: `DBUS_SESSION_BUS_ADDRESS`,
/// else the user manager's socket `$XDG_RUNTIME_DIR/bus` when it exists (a `systemd --user` service or an
/// ssh login may have the socket but not the variable). Pure: the caller says whether the socket exists.
package enum SessionBusLocation: Sendable, Equatable, CustomStringConvertible {
    /// `DBUS_SESSION_BUS_ADDRESS`, set and not empty.
    case environment(String)
    /// The socket at this path (`$XDG_RUNTIME_DIR/bus`).
    case runtimeDirectory(String)
    /// Neither.
    case none

    package static func find(
        environment: [String: String], socketExists: (String) -> Bool
    ) -> SessionBusLocation {
        if let address = environment["DBUS_SESSION_BUS_ADDRESS"], !address.isEmpty { return .environment(address) }
        if let runtime = environment["XDG_RUNTIME_DIR"], runtime.hasPrefix("/") {
            let path = (runtime.hasSuffix("/") ? String(runtime.dropLast()) : runtime) + "/bus"
            if socketExists(path) { return .runtimeDirectory(path) }
        }
        return .none
    }

    /// The D-Bus address to connect to; nil for `.none`.
    package var address: String? {
        switch self {
        case let .environment(address): address
        case let .runtimeDirectory(path): "unix:path=" + Self.escaped(path)
        case .none: nil
        }
    }

    package var description: String {
        switch self {
        case let .environment(address): "\(address) (DBUS_SESSION_BUS_ADDRESS)"
        case let .runtimeDirectory(path): "\(path) ($XDG_RUNTIME_DIR/bus)"
        case .none: "none (DBUS_SESSION_BUS_ADDRESS unset, no $XDG_RUNTIME_DIR/bus)"
        }
    }

    /// A value in a D-Bus address: bytes outside `[-0-9A-Za-z_/.\*]` as `%XX` (the specification's
    /// "Server Addresses").
    static func escaped(_ value: String) -> String {
        var text = ""
        for byte in value.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "/"),
                UInt8(ascii: "."), UInt8(ascii: "\\"), UInt8(ascii: "*"):
                text.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                let hex = Array("0123456789abcdef".unicodeScalars)
                text += "%" + String(hex[Int(byte >> 4)]) + String(hex[Int(byte & 0xF)])
            }
        }
        return text
    }
}
