import DesktopNotifications
import Doctor
import PhoneCore

/// Desktop notifications: a session bus, and a server owning `org.freedesktop.Notifications` on it. They
/// are optional (a headless host has neither; alerts still reach the terminal and `--json`), so their
/// absence is an info with the way to get them; only a session bus that is named but dead is a problem.
extension PhoneDoctor {
    static func session(_ view: SessionView) -> DoctorFinding {
        guard view.location != .none, let notifications = view.notifications else {
            return .info(
                "no session bus (DBUS_SESSION_BUS_ADDRESS unset, no $XDG_RUNTIME_DIR/bus): no desktop "
                    + "notifications; alerts go to the terminal and --json",
                fix: "run aiden-phone in your desktop session (its systemd --user unit) to get desktop notifications")
        }
        switch notifications {
        case let .busUnreachable(why):
            return .problem(
                "the session bus \(view.location) is not reachable (\(why))",
                fix: "log in to the desktop session again, or unset a stale DBUS_SESSION_BUS_ADDRESS")
        case let .noServer(error):
            return .info(
                "no notification server on the session bus \(view.location) (\(DesktopNotifier.serviceName): "
                    + "\(BoardText.printable(error, limit: 100))): alerts go to the terminal and --json only",
                fix: "start your desktop's notification service, or install one (notification-daemon, dunst, mako)")
        case let .server(name):
            return .ok(
                "desktop notifications via \(BoardText.printable(name, limit: 100)) on the session bus \(view.location)"
            )
        }
    }
}
