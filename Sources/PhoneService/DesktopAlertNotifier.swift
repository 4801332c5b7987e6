import DBus
import DBusModel
import DesktopNotifications
import PhoneCore
import Platform
import Synchronization

/// Alerts as desktop notifications (`org.freedesktop.Notifications`) when the user's session bus
/// offers a notification server. Connecting is asynchronous, so the notifier joins when it is ready;
/// alerts before that (or on a host without a desktop) still reach the terminal and `--json`.
///
/// A client started with the board (the `systemd --user` unit, at login or on plug-in) may come up
/// before the desktop's notification server: while there is none, each new alert tries to connect
/// again and is shown once that succeeds. (Once connected, a restarted server takes over the
/// well-known name, so the same connection reaches it.)
package final class DesktopAlertNotifier: AlertNotifier {
    /// Where the notifier stands with the session's notification server.
    private enum Link {
        /// No session bus in the environment: nothing to try.
        case noBus
        /// Not connected (yet, or any more): the next alert tries again.
        case idle(address: String)
        /// A connection attempt is under way; alerts meanwhile wait for it.
        case connecting(address: String, pending: [DesktopNotification])
        /// The bus connection is kept open by staying here.
        case connected(notifier: DesktopNotifier, bus: DBusConnection)
    }

    /// Alerts kept while a connection attempt runs (they are on the terminal and in `--json` anyway).
    static let pendingLimit = 8

    private let link = Mutex<Link>(.noBus)
    /// The first missing server is said at info level, later attempts at debug, so a desktop-less
    /// host does not log at every alert.
    private let saidAbsent = Atomic<Bool>(false)
    /// Told each time notifications can be shown.
    private let connected = Mutex<(@Sendable () -> Void)?>(nil)
    private let logger: Logger

    package init(logger: Logger) {
        self.logger = logger
    }

    /// Looks for a session bus (`DBUS_SESSION_BUS_ADDRESS`, else `$XDG_RUNTIME_DIR/bus`) and a notification
    /// server; logs what it found. `connected` is called each time notifications can be shown (the client
    /// then reports them as its return entry).
    package func connect(environment: [String: String], connected: @escaping @Sendable () -> Void) {
        let location = SessionBusLocation.find(environment: environment, socketExists: POSIXFileSystem().fileExists)
        guard let address = location.address else {
            logger.info("no session bus (\(location)): alerts go to the terminal and --json only")
            return
        }
        self.connected.withLock { $0 = connected }
        link.withLock { $0 = .connecting(address: address, pending: []) }
        attempt(address)
    }

    package func deliver(_ alert: Alert) {
        let notification = Self.notification(for: alert)
        enum Step {
            case nothing
            case notify(DesktopNotifier)
            case connect(String)
        }
        let step = link.withLock { link -> Step in
            switch link {
            case .noBus:
                return .nothing
            case let .connected(notifier, _):
                return .notify(notifier)
            case let .connecting(address, pending):
                link = .connecting(
                    address: address, pending: Array((pending + [notification]).suffix(Self.pendingLimit)))
                return .nothing
            case let .idle(address):
                link = .connecting(address: address, pending: [notification])
                return .connect(address)
            }
        }
        switch step {
        case .nothing: break
        case let .notify(notifier): show(notification, with: notifier)
        case let .connect(address): attempt(address)
        }
    }

    /// Connects to the bus and the server, then shows what waited meanwhile.
    private func attempt(_ address: String) {
        let logger = logger
        Task {
            let outcome: Result<(DesktopNotifier, DBusConnection), DBusError>
            do throws(DBusError) {
                let bus = try await DBusConnection.connect(to: .address(address), timeout: .seconds(2))
                switch await DesktopNotifier.connect(bus: bus) {
                case let .success(desktop): outcome = .success((desktop, bus))
                case let .failure(error):
                    bus.close()
                    outcome = .failure(error)
                }
            } catch {
                outcome = .failure(error)
            }
            switch outcome {
            case let .success((desktop, bus)):
                let pending = link.withLock { link -> [DesktopNotification] in
                    guard case let .connecting(_, pending) = link else { return [] }
                    link = .connected(notifier: desktop, bus: bus)
                    return pending
                }
                saidAbsent.store(false, ordering: .relaxed)
                logger.info("desktop notifications via \(desktop.server)")
                connected.withLock { $0 }?()
                for notification in pending { show(notification, with: desktop) }
            case let .failure(error):
                let dropped = link.withLock { link -> Int in
                    guard case let .connecting(_, pending) = link else { return 0 }
                    link = .idle(address: address)
                    return pending.count
                }
                let message =
                    "no desktop notification server on the session bus (\(error)): terminal and --json only"
                    + (dropped > 0 ? "; \(dropped) not shown, the next alert tries again" : "")
                if saidAbsent.exchange(true, ordering: .relaxed) {
                    logger.debug(message)
                } else {
                    logger.info(message)
                }
            }
        }
    }

    private func show(_ notification: DesktopNotification, with desktop: DesktopNotifier) {
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
        // The summary is fixed words; the board's text goes only in the body, cleaned of control, separator
        // and format characters (`AlertText`) and escaped by the notifier for servers that render body markup.
        return DesktopNotification(
            summary: AlertText.headline(alert), body: AlertText.body(alert), urgency: urgency,
            category: category)
    }
}
