internal import CDBus

/// Name checks by libdbus's own rules (its `dbus_validate_*` functions report instead of aborting).
package enum DBusNames {
    /// A unique (`:1.42`) or well-known (`org.bluez`) bus name.
    package static func isValidBusName(_ name: String) -> Bool {
        !name.utf8.contains(0) && dbus_validate_bus_name(name, nil) != 0
    }

    package static func isValidInterface(_ name: String) -> Bool {
        !name.utf8.contains(0) && dbus_validate_interface(name, nil) != 0
    }

    package static func isValidMember(_ name: String) -> Bool {
        !name.utf8.contains(0) && dbus_validate_member(name, nil) != 0
    }

    package static func isValidErrorName(_ name: String) -> Bool {
        !name.utf8.contains(0) && dbus_validate_error_name(name, nil) != 0
    }
}
