import Testing

@testable import DesktopNotifications

/// Where the session bus is: the variable first, then the user manager's socket in the runtime directory.
@Suite struct SessionBusLocationTests {
    @Test(arguments: [
        (
            ["DBUS_SESSION_BUS_ADDRESS": "unix:path=/tmp/b", "XDG_RUNTIME_DIR": "/run/user/1000"],
            SessionBusLocation.environment("unix:path=/tmp/b"), String?.some("unix:path=/tmp/b")
        ),
        (
            ["XDG_RUNTIME_DIR": "/run/user/1000"], .runtimeDirectory("/run/user/1000/bus"),
            "unix:path=/run/user/1000/bus"
        ),
        (
            ["XDG_RUNTIME_DIR": "/run/user/1000/"], .runtimeDirectory("/run/user/1000/bus"),
            "unix:path=/run/user/1000/bus"
        ),
        // An empty variable is unset; a relative runtime directory is not one (the spec wants it absolute).
        (
            ["DBUS_SESSION_BUS_ADDRESS": "", "XDG_RUNTIME_DIR": "/run/user/1000"],
            .runtimeDirectory("/run/user/1000/bus"),
            "unix:path=/run/user/1000/bus"
        ),
        (["XDG_RUNTIME_DIR": "run/user/1000"], .none, nil),
        ([:], .none, nil),
        // Characters outside the address alphabet are escaped.
        (
            ["XDG_RUNTIME_DIR": "/run/user/a b;c=d"], .runtimeDirectory("/run/user/a b;c=d/bus"),
            "unix:path=/run/user/a%20b%3bc%3dd/bus"
        ),
    ])
    func finds(environment: [String: String], expected: SessionBusLocation, address: String?) {
        let location = SessionBusLocation.find(environment: environment) { $0.hasPrefix("/run/user/") }
        #expect(location == expected)
        #expect(location.address == address)
    }

    @Test func aMissingSocketIsNoBus() {
        #expect(SessionBusLocation.find(environment: ["XDG_RUNTIME_DIR": "/run/user/1000"]) { _ in false } == .none)
        #expect("\(SessionBusLocation.none)" == "none (DBUS_SESSION_BUS_ADDRESS unset, no $XDG_RUNTIME_DIR/bus)")
    }
}
