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
        case connecting(address: String, pending: [(DesktopNotification, Alert)])
        /// The bus connection is kept open by staying here.
        case connected(notifier: DesktopNotifier, bus: DBusConnection)
    }

    /// A notification on the screen that offers answers: its task and its buttons.
    struct Shown: Sendable, Equatable {
        var requestID: String
        var answers: [PersonAnswer]
    }

    /// By the server's notification id; an entry goes when the server says the notification closed.
    private let shown = Mutex<[UInt32: Shown]>([:])
    /// Told when the person presses an answer's button (the client posts it, as for a key).
    private let answered = Mutex<(@Sendable (PersonAnswer, String) -> Void)?>(nil)

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

    /// `handler` gets each answer pressed on a notification: the answer and the task's request id.
    package func onAnswer(_ handler: @escaping @Sendable (PersonAnswer, String) -> Void) {
        answered.withLock { $0 = handler }
    }

    /// A signal from the server about one of this notifier's notifications (already checked by
    /// `DesktopNotifier.subscribe` to come from the server, about its own id).
    func received(_ signal: DesktopNotifier.Signal) {
        switch signal {
        case let .actionInvoked(id, key):
            guard let entry = shown.withLock({ $0[id] }), let answer = PersonAnswer(rawValue: key),
                entry.answers.contains(answer)
            else {
                logger.debug(
                    "notification \(id): action \(BoardText.printable(key, limit: 32)) is not an answer it offers")
                return
            }
            // One answer per notification: a second press (or a server that repeats itself) sends nothing.
            shown.withLock { $0[id] = nil }
            logger.info("notification \(id): \(answer.rawValue) pressed for task \(entry.requestID)")
            answered.withLock { $0 }?(answer, entry.requestID)
        case let .closed(id, _):
            shown.withLock { $0[id] = nil }
        }
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
                    address: address, pending: Array((pending + [(notification, alert)]).suffix(Self.pendingLimit)))
                return .nothing
            case let .idle(address):
                link = .connecting(address: address, pending: [(notification, alert)])
                return .connect(address)
            }
        }
        switch step {
        case .nothing: break
        case let .notify(notifier): show(notification, for: alert, with: notifier)
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
                let pending = link.withLock { link -> [(DesktopNotification, Alert)] in
                    guard case let .connecting(_, pending) = link else { return [] }
                    link = .connected(notifier: desktop, bus: bus)
                    return pending
                }
                saidAbsent.store(false, ordering: .relaxed)
                logger.info("desktop notifications via \(desktop.server)")
                do {
                    _ = try await desktop.subscribe { [weak self] signal in self?.received(signal) }
                } catch {
                    logger.warning("notification buttons will do nothing: cannot follow the server's signals: \(error)")
                }
                connected.withLock { $0 }?()
                for (notification, alert) in pending { show(notification, for: alert, with: desktop) }
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

    private func show(_ notification: DesktopNotification, for alert: Alert, with desktop: DesktopNotifier) {
        let logger = logger
        Task {
            do {
                let id = try await desktop.notify(notification)
                if let requestID = alert.requestID, !alert.answers.isEmpty {
                    shown.withLock { $0[id] = Shown(requestID: requestID, answers: alert.answers) }
                }
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
        // Buttons for the answers the alert's task can take (spec of issue #15: stop, done and refuse,
        // dismiss); the keys are the wire's names, sent back in `ActionInvoked`.
        let actions =
            alert.requestID == nil
            ? [] : alert.answers.map { DesktopNotification.Action(key: $0.rawValue, label: $0.verb) }
        return DesktopNotification(
            summary: AlertText.headline(alert), body: AlertText.body(alert), urgency: urgency,
            category: category, actions: actions)
    }
}
