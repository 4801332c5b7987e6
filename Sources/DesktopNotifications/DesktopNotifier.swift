import DBusModel
import Synchronization

/// Desktop notifications through `org.freedesktop.Notifications` (the freedesktop.org notification
/// spec, version 1.2), for the phone host's task cards and their alerts (`DesktopCardSurface` sends them).
/// Used only when a session bus offers a notification server; the terminal card or the `--json` stream
/// carries the alerts as well.
package final class DesktopNotifier: Sendable {
    package static let serviceName = "org.freedesktop.Notifications"
    static let path: DBusObjectPath = "/org/freedesktop/Notifications"

    private let bus: any MessageBus
    private let appName: String
    /// Who answered `GetServerInformation` (name, vendor, version), for logs.
    package let server: String
    /// The server's name alone (`dunst`, `mako`, `xfce4-notifyd`, `gnome-shell`): what it is known to do.
    package let serverName: String
    /// The server renders markup in bodies (`body-markup` capability): text from the board must be
    /// escaped there, or a task title could bold, link or hide the rest of the notification.
    package let rendersBodyMarkup: Bool
    /// The unique name (`:1.7`) that owns `org.freedesktop.Notifications` now: the only sender whose
    /// `ActionInvoked` and `NotificationClosed` are believed (anyone on a session bus can send a signal
    /// that claims the interface, and a unicast one reaches this connection whatever its match rules).
    private let owner = Mutex<String?>(nil)
    /// The ids the server gave this notifier's notifications, newest last, bounded: signals about any
    /// other id are about someone else's notification.
    private let ownIDs = Mutex<[UInt32]>([])
    static let ownIDLimit = 64

    /// What the server says about one of this notifier's notifications.
    package enum Signal: Sendable, Equatable {
        /// The person pressed the action with this key (`ActionInvoked`).
        case actionInvoked(id: UInt32, key: String)
        /// The notification went away (`NotificationClosed`; reason 1 expired, 2 dismissed, 3 closed by a
        /// call, 4 other).
        case closed(id: UInt32, reason: UInt32)
    }

    private init(
        bus: any MessageBus, appName: String, server: String, serverName: String, rendersBodyMarkup: Bool,
        owner: String?
    ) {
        self.bus = bus
        self.appName = appName
        self.server = server
        self.serverName = serverName
        self.rendersBodyMarkup = rendersBodyMarkup
        self.owner.withLock { $0 = owner }
    }

    /// A notifier on `bus` if a notification server answers there (activating it if the bus can);
    /// otherwise the reason, for one log line.
    package static func connect(
        bus: any MessageBus, appName: String = "aiden-phone",
        timeout: Duration = .seconds(2)
    ) async -> Result<DesktopNotifier, DBusError> {
        do {
            let info = try await bus.call(
                destination: serviceName, path: path, interface: serviceName, member: "GetServerInformation",
                expecting: "ssss", timeout: timeout)
            let server = info.compactMap(\.stringValue).prefix(3).joined(separator: " ")
            // Required by the spec; a server that cannot say is taken to show bodies as plain text.
            let capabilities = try? await bus.call(
                destination: serviceName, path: path, interface: serviceName, member: "GetCapabilities",
                expecting: "as", timeout: timeout)
            let markup = capabilities?.first?.stringArray?.contains("body-markup") ?? false
            let owner = try? await bus.nameOwner(serviceName, timeout: timeout)
            return .success(
                DesktopNotifier(
                    bus: bus, appName: appName, server: server, serverName: info.first?.stringValue ?? "",
                    rendersBodyMarkup: markup, owner: owner))
        } catch {
            return .failure(error)
        }
    }

    /// Shows one notification and returns the server's id for it.
    @discardableResult
    package func notify(
        _ notification: DesktopNotification, timeout: Duration = .seconds(2)
    )
        async throws(DBusError) -> UInt32
    {
        var hints: [String: DBusValue] = ["urgency": .byte(notification.urgency.rawValue)]
        if let category = notification.category { hints["category"] = .string(category) }
        // The spec's `value` is an int32 (0–100); dunst, mako and swaync draw it as a bar.
        if let progress = notification.progress { hints["value"] = .int32(progress) }
        if let entry = notification.desktopEntry { hints["desktop-entry"] = .string(entry) }
        // dunst, mako and swaync replace a notification with the same tag: a restarted client, which lost the
        // ids, takes its card back instead of adding a second one.
        if let tag = notification.tag { hints["x-canonical-private-synchronous"] = .string(tag) }
        if notification.resident { hints["resident"] = .boolean(true) }
        let reply = try await bus.call(
            destination: Self.serviceName, path: Self.path, interface: Self.serviceName, member: "Notify",
            [
                .string(appName), .uint32(notification.replacesID), .string(notification.icon),
                .string(notification.summary),
                .string(rendersBodyMarkup ? Self.escapingMarkup(notification.body) : notification.body),
                .strings(notification.actions.flatMap { [$0.key, $0.label] }), .vardict(hints),
                .int32(notification.expireTimeoutMilliseconds),
            ],
            expecting: "u", timeout: timeout)
        let id = reply.first?.uint32Value ?? 0
        ownIDs.withLock { ids in
            // A card replaced in place keeps its id: once in the list, newest last.
            ids.removeAll { $0 == id }
            ids.append(id)
            if ids.count > Self.ownIDLimit { ids.removeFirst(ids.count - Self.ownIDLimit) }
        }
        return id
    }

    /// Takes notification `id` off the screen (`CloseNotification`); the server answers with `NotificationClosed`
    /// reason 3.
    package func close(_ id: UInt32, timeout: Duration = .seconds(2)) async throws(DBusError) {
        _ = try await bus.call(
            destination: Self.serviceName, path: Self.path, interface: Self.serviceName, member: "CloseNotification",
            [.uint32(id)], expecting: "", timeout: timeout)
    }

    /// Calls `handler` with each `ActionInvoked` and `NotificationClosed` about this notifier's own
    /// notifications, sent by the server that owns the name now (followed across a server restart);
    /// every other such signal is dropped. Handlers run on the bus thread and must return quickly.
    package func subscribe(
        _ handler: @escaping @Sendable (Signal) -> Void
    ) async throws(DBusError) -> [DBusMatchToken] {
        let watch = try await bus.watchNameOwner(Self.serviceName) { [self] newOwner in
            owner.withLock { $0 = newOwner }
        }
        func rule(_ member: String) -> DBusMatchRule {
            DBusMatchRule(sender: Self.serviceName, interface: Self.serviceName, member: member, path: Self.path)
        }
        let accept: @Sendable (DBusMessage) -> UInt32? = { [self] message in
            guard let sender = message.sender, sender == owner.withLock({ $0 }),
                message.path == Self.path, message.interface == Self.serviceName,
                let id = message.body.first?.uint32Value, ownIDs.withLock({ $0.contains(id) })
            else { return nil }
            return id
        }
        let invoked = try await bus.addMatch(rule("ActionInvoked")) { message in
            guard message.signature == "us", let id = accept(message), let key = message.body[1].stringValue else {
                return
            }
            handler(.actionInvoked(id: id, key: key))
        }
        let closed = try await bus.addMatch(rule("NotificationClosed")) { [self] message in
            guard message.signature == "uu", let id = accept(message), let reason = message.body[1].uint32Value else {
                return
            }
            ownIDs.withLock { $0.removeAll { $0 == id } }
            handler(.closed(id: id, reason: reason))
        }
        return [watch, invoked, closed]
    }

    /// `&`, `<` and `>` as entities, so the text shows as written and opens no tag (`<b>`, `<a href>`,
    /// `<img>`) and no entity. The spec's markup is XML-based: in text, only these mean anything; quotes do
    /// only inside an attribute value, and this body never writes a tag, so they stay as they are.
    package static func escapingMarkup(_ text: String) -> String {
        var escaped = ""
        escaped.reserveCapacity(text.utf8.count)
        for character in text {
            switch character {
            case "&": escaped += "&amp;"
            case "<": escaped += "&lt;"
            case ">": escaped += "&gt;"
            default: escaped.append(character)
            }
        }
        return escaped
    }
}

/// One notification's content.
package struct DesktopNotification: Sendable, Equatable {
    package enum Urgency: UInt8, Sendable {
        case low = 0, normal = 1, critical = 2
    }

    package var summary: String
    package var body: String
    package var urgency: Urgency
    package var icon: String
    /// e.g. "device.added", "transfer.complete", "transfer.error" (spec categories).
    package var category: String?
    /// -1: the server's default.
    package var expireTimeoutMilliseconds: Int32
    package var replacesID: UInt32
    /// Buttons, in order: the key the server sends back in `ActionInvoked`, and the label shown.
    package var actions: [Action]
    /// The `value` hint, 0–100 (nil: none).
    package var progress: Int32?
    /// The `desktop-entry` hint: the program's desktop file name, without `.desktop`.
    package var desktopEntry: String?
    /// The `x-canonical-private-synchronous` hint: notifications with the same tag replace each other.
    package var tag: String?
    /// The `resident` hint: the server keeps the notification when an action is invoked.
    package var resident: Bool

    package struct Action: Sendable, Equatable {
        package var key: String
        package var label: String

        package init(key: String, label: String) {
            self.key = key
            self.label = label
        }
    }

    package init(
        summary: String, body: String = "", urgency: Urgency = .normal, icon: String = "",
        category: String? = nil, expireTimeoutMilliseconds: Int32 = -1, replacesID: UInt32 = 0,
        actions: [Action] = [], progress: Int32? = nil, desktopEntry: String? = nil, tag: String? = nil,
        resident: Bool = false
    ) {
        self.resident = resident
        self.actions = actions
        self.progress = progress
        self.desktopEntry = desktopEntry
        self.tag = tag
        self.summary = summary
        self.body = body
        self.urgency = urgency
        self.icon = icon
        self.category = category
        self.expireTimeoutMilliseconds = expireTimeoutMilliseconds
        self.replacesID = replacesID
    }
}
