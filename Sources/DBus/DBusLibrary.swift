internal import CDBus

/// Facts about the linked libdbus-1.
package enum DBusLibrary {
    /// The runtime libdbus version, as "major.minor.micro".
    package static var version: String {
        var major: Int32 = 0
        var minor: Int32 = 0
        var micro: Int32 = 0
        aiden_dbus_version(&major, &minor, &micro)
        return "\(major).\(minor).\(micro)"
    }

    /// Whether `name` is a valid D-Bus bus name, as libdbus judges it (the reference for `DBusNames`).
    package static func isValidBusName(_ name: String) -> Bool {
        !name.utf8.contains(0) && dbus_validate_bus_name(name, nil) != 0
    }

    /// Whether `name` is a valid interface name, as libdbus judges it (the reference for `DBusNames`).
    package static func isValidInterface(_ name: String) -> Bool {
        !name.utf8.contains(0) && dbus_validate_interface(name, nil) != 0
    }

    /// Whether `name` is a valid member name, as libdbus judges it (the reference for `DBusNames`).
    package static func isValidMember(_ name: String) -> Bool {
        !name.utf8.contains(0) && dbus_validate_member(name, nil) != 0
    }

    /// Whether `name` is a valid error name, as libdbus judges it (the reference for `DBusNames`).
    package static func isValidErrorName(_ name: String) -> Bool {
        !name.utf8.contains(0) && dbus_validate_error_name(name, nil) != 0
    }

    /// Whether `path` is a valid D-Bus object path.
    package static func isValidObjectPath(_ path: String) -> Bool {
        dbus_validate_path(path, nil) != 0
    }

    /// Whether `signature` is a valid D-Bus signature, as libdbus judges it (the reference for `DBusSignature`).
    package static func isValidSignature(_ signature: String) -> Bool {
        !signature.utf8.contains(0) && dbus_signature_validate(signature, nil) != 0
    }
}
