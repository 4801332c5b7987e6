import DBusModel

/// Desktop notifications through `org.freedesktop.Notifications` (the freedesktop.org notification
/// spec, version 1.2), for the phone host's alerts. Used only when a session bus offers a notification
/// server; the `--json` stream always carries the alerts as well.
package final class DesktopNotifier: Sendable {
    package static let serviceName = "org.freedesktop.Notifications"
    static let path: DBusObjectPath = "/org/freedesktop/Notifications"

    private let bus: any MessageBus
    private let appName: String
    /// Who answered `GetServerInformation` (name, vendor, version), for logs.
    package let server: String
    /// The server renders markup in bodies (`body-markup` capability): text from the board must be
    /// escaped there, or a task title could bold, link or hide the rest of the notification.
    package let rendersBodyMarkup: Bool

    private init(bus: any MessageBus, appName: String, server: String, rendersBodyMarkup: Bool) {
        self.bus = bus
        self.appName = appName
        self.server = server
        self.rendersBodyMarkup = rendersBodyMarkup
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
            return .success(
                DesktopNotifier(bus: bus, appName: appName, server: server, rendersBodyMarkup: markup))
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
        let reply = try await bus.call(
            destination: Self.serviceName, path: Self.path, interface: Self.serviceName, member: "Notify",
            [
                .string(appName), .uint32(notification.replacesID), .string(notification.icon),
                .string(notification.summary),
                .string(rendersBodyMarkup ? Self.escapingMarkup(notification.body) : notification.body),
                .strings([]), .vardict(hints),
                .int32(notification.expireTimeoutMilliseconds),
            ],
            expecting: "u", timeout: timeout)
        return reply.first?.uint32Value ?? 0
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

    package init(
        summary: String, body: String = "", urgency: Urgency = .normal, icon: String = "",
        category: String? = nil, expireTimeoutMilliseconds: Int32 = -1, replacesID: UInt32 = 0
    ) {
        self.summary = summary
        self.body = body
        self.urgency = urgency
        self.icon = icon
        self.category = category
        self.expireTimeoutMilliseconds = expireTimeoutMilliseconds
        self.replacesID = replacesID
    }
}
