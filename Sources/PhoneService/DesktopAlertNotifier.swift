import DBus
import DesktopNotifications
import PhoneCore
import Platform
import Synchronization

/// Alerts as desktop notifications (`org.freedesktop.Notifications`) when the user's session bus
/// offers a notification server. Connecting is asynchronous, so the notifier joins when it is ready;
/// alerts before that (or on a host without a desktop) still reach the terminal and `--json`.
package final class DesktopAlertNotifier: AlertNotifier {
    private let notifier = Mutex<DesktopNotifier?>(nil)
    private let logger: Logger

    package init(logger: Logger) {
        self.logger = logger
    }

    /// Looks for a session bus (`DBUS_SESSION_BUS_ADDRESS`, else `$XDG_RUNTIME_DIR/bus`) and a notification
    /// server; logs once what it found, and calls `connected` once notifications can be shown (the client
    /// then reports them as its return entry).
    package func connect(environment: [String: String], connected: @escaping @Sendable () -> Void) {
        let location = SessionBusLocation.find(environment: environment, socketExists: POSIXFileSystem().fileExists)
        guard let address = location.address else {
            logger.info("no session bus (\(location)): alerts go to the terminal and --json only")
            return
        }
        Task {
            do {
                let bus = try await DBusConnection.connect(to: .address(address), timeout: .seconds(2))
                switch await DesktopNotifier.connect(bus: bus) {
                case let .success(desktop):
                    notifier.withLock { $0 = desktop }
                    logger.info("desktop notifications via \(desktop.server)")
                    connected()
                case let .failure(error):
                    bus.close()
                    logger.info(
                        "no desktop notification server on the session bus (\(error.name)): terminal and --json only")
                }
            } catch {
                logger.info("session bus not reachable (\(error)): alerts go to the terminal and --json only")
            }
        }
    }

    package func deliver(_ alert: Alert) {
        guard let desktop = notifier.withLock({ $0 }) else { return }
        let notification = Self.notification(for: alert)
        let logger = logger
        Task {
            do {
                try await desktop.notify(notification)
            } catch {
                logger.warning("desktop notification failed: \(error)")
            }
        }
    }

    /// What a person sees for each alert: the ones that ask for action are critical.
    package static func notification(for alert: Alert) -> DesktopNotification {
        let urgency: DesktopNotification.Urgency
        let category: String
        switch alert.transition {
        case .connected:
            (urgency, category) = (.low, "device.added")
        case .handoff, .foregroundRecovery:
            (urgency, category) = (.critical, "im.received")
        case .completed:
            (urgency, category) = (.normal, "transfer.complete")
        case .failed:
            (urgency, category) = (.critical, "transfer.error")
        }
        // The summary is fixed words; the board's text goes only in the body, which the notifier
        // escapes for servers that render body markup.
        return DesktopNotification(
            summary: AlertText.headline(alert), body: AlertText.body(alert), urgency: urgency,
            category: category)
    }
}
