import DBus
import DBusModel
import DesktopNotifications
import PhoneCore
import Platform
import Synchronization
import TestSupport
import Testing

@testable import DesktopNotifications
@testable import PhoneService

/// Which session bus the notifier uses (`SessionBusLocation`): the variable, else the one every systemd user
/// session has.
@Suite struct SessionBusAddressTests {
    @Test(arguments: [
        (["DBUS_SESSION_BUS_ADDRESS": "unix:path=/run/user/1000/bus"], "unix:path=/run/user/1000/bus"),
        (
            ["DBUS_SESSION_BUS_ADDRESS": "unix:abstract=/tmp/dbus-x", "XDG_RUNTIME_DIR": "/run/user/1000"],
            "unix:abstract=/tmp/dbus-x"
        ),
        (["XDG_RUNTIME_DIR": "/run/user/1000"], "unix:path=/run/user/1000/bus"),
        (["DBUS_SESSION_BUS_ADDRESS": "", "XDG_RUNTIME_DIR": "/run/user/1000"], "unix:path=/run/user/1000/bus"),
        (["XDG_RUNTIME_DIR": "/tmp/run dir,x=y;z"], "unix:path=/tmp/run%20dir%2cx%3dy%3bz/bus"),
    ])
    func theVariableElseTheRuntimeDirectory(environment: [String: String], address: String) {
        #expect(SessionBusLocation.find(environment: environment, socketExists: { _ in true }).address == address)
    }

    @Test(arguments: [
        [:], ["XDG_RUNTIME_DIR": ""], ["XDG_RUNTIME_DIR": "run/user/1000"], ["DBUS_SESSION_BUS_ADDRESS": ""],
    ])
    func noBusWithoutEither(environment: [String: String]) {
        #expect(SessionBusLocation.find(environment: environment, socketExists: { _ in true }).address == nil)
    }
}
