import DBusModel
import PhoneCore
import Platform
import Synchronization
import WireFormat

/// The tray item (docs/desktop.md): an `org.kde.StatusNotifierItem` with a `com.canonical.dbusmenu` menu on the
/// session bus, registered with `org.kde.StatusNotifierWatcher`. `TrayPlan` decides; this shell exports the two
/// objects (and the launcher entry) on the phone's session bus connection (`SessionBus`), answers the host's
/// property reads and menu calls from the plan under one lock, signals what changed, and registers with the
/// watcher at connection and whenever its name gets a new owner (`NameOwnerChanged`). A missing or crashing
/// watcher never stops the client or the other surfaces: the item waits for the next one.
package final class TraySurface: CardSurface, SessionBusSurface {
    private struct State: Sendable {
        var plan = TrayPlan()
        var launcher = LauncherEntry()
        var bus: (any BusConnection)?
        /// The watch on the watcher's name, on `bus`.
        var watch: DBusMatchToken?
        var answered: (@Sendable (Answer, String, UInt64?) -> Void)?
        var opened: (@Sendable (String) -> Void)?
        var saidAbsent = false
    }

    package static let itemInterface = "org.kde.StatusNotifierItem"
    package static let itemPath: DBusObjectPath = "/StatusNotifierItem"
    package static let menuInterface = "com.canonical.dbusmenu"
    package static let menuPath: DBusObjectPath = "/MenuBar"
    package static let watcherName = "org.kde.StatusNotifierWatcher"
    package static let watcherPath: DBusObjectPath = "/StatusNotifierWatcher"
    package static let launcherInterface = "com.canonical.Unity.LauncherEntry"
    package static let launcherPath: DBusObjectPath = "/com/canonical/unity/launcherentry/aiden_phone"

    private let state = Mutex(State())
    private let runtime: any Runtime
    private let logger: Logger

    package init(runtime: any Runtime, logger: Logger) {
        self.runtime = runtime
        self.logger = logger
    }

    /// `answered` gets each answer pressed in the menu (answer, request id, the revision the menu showed);
    /// `opened` each Show card.
    package func onEvents(
        answered: @escaping @Sendable (Answer, String, UInt64?) -> Void,
        opened: @escaping @Sendable (String) -> Void
    ) {
        state.withLock {
            $0.answered = answered
            $0.opened = opened
        }
    }

    /// Exports the item, its menu and the launcher entry on `bus`, follows the watcher's name and registers. An
    /// export the bus refuses leaves the tray off this connection (a warning); the other surfaces go on.
    package func attach(to bus: any BusConnection) async {
        do throws(DBusError) {
            try bus.export(item(), at: Self.itemPath)
            try bus.export(menu(), at: Self.menuPath)
            try bus.export(launcher(), at: Self.launcherPath)
        } catch {
            logger.warning("the tray item and launcher entry are off: cannot export them on the session bus: \(error)")
            unexport(from: bus)
            return
        }
        let entry = state.withLock { state in
            state.bus = bus
            return state.launcher
        }
        try? bus.emit(Self.update(entry))
        do {
            let watch = try await bus.watchNameOwner(Self.watcherName) { [weak self] owner in
                guard owner != nil, let self else { return }
                runtime.spawn { await self.register(bus) }
            }
            state.withLock { $0.watch = watch }
        } catch {
            logger.warning("cannot follow the StatusNotifierWatcher's name on the session bus: \(error)")
        }
        await register(bus)
    }

    package func detach(from bus: any BusConnection) async {
        let watch = state.withLock { state in
            defer {
                state.bus = nil
                state.watch = nil
            }
            return state.watch
        }
        unexport(from: bus)
        if let watch { await bus.removeMatch(watch) }
    }

    package func busUnavailable() {
        state.withLock { $0.bus = nil }
    }

    private func unexport(from bus: any BusConnection) {
        bus.unexport(Self.itemPath)
        bus.unexport(Self.menuPath)
        bus.unexport(Self.launcherPath)
    }

    /// `RegisterStatusNotifierItem` with this connection's name; no watcher is said once, then at debug level.
    private func register(_ bus: any BusConnection) async {
        do {
            _ = try await bus.call(
                destination: Self.watcherName, path: Self.watcherPath, interface: Self.watcherName,
                member: "RegisterStatusNotifierItem", [.string(bus.uniqueName)], timeout: .seconds(5))
            state.withLock { $0.saidAbsent = false }
            logger.info("tray item registered with the StatusNotifierWatcher")
        } catch {
            let said = state.withLock { state in
                defer { state.saidAbsent = true }
                return state.saidAbsent
            }
            let message = "no StatusNotifierWatcher on the session bus (\(error)): the tray item waits for one"
            if said { logger.debug(message) } else { logger.info(message) }
        }
    }

    package func show(_ cards: [Card], current: Card?, alerts: [Alert]) {
        let entry = LauncherEntry(cards: cards, current: current)
        let (effects, bus, launcherChanged) = state.withLock { state in
            defer { state.launcher = entry }
            return (state.plan.show(cards, current: current), state.bus, state.launcher != entry)
        }
        guard let bus else { return }
        if launcherChanged {
            do { try bus.emit(Self.update(entry)) } catch { logger.debug("launcher entry not sent: \(error)") }
        }
        for effect in effects {
            do {
                switch effect {
                case let .statusChanged(status):
                    try bus.emitSignal(
                        path: Self.itemPath, interface: Self.itemInterface, member: "NewStatus",
                        [.string(status.rawValue)])
                case .iconChanged:
                    try bus.emitSignal(path: Self.itemPath, interface: Self.itemInterface, member: "NewIcon")
                    try bus.emitSignal(path: Self.itemPath, interface: Self.itemInterface, member: "NewAttentionIcon")
                case .tooltipChanged:
                    try bus.emitSignal(path: Self.itemPath, interface: Self.itemInterface, member: "NewToolTip")
                    try bus.emitSignal(path: Self.itemPath, interface: Self.itemInterface, member: "NewTitle")
                case let .layoutChanged(revision):
                    try bus.emitSignal(
                        path: Self.menuPath, interface: Self.menuInterface, member: "LayoutUpdated",
                        [.uint32(revision), .int32(0)])
                case .perform:
                    break
                }
            } catch {
                logger.debug("tray signal not sent: \(error)")
            }
        }
    }

    // MARK: The item

    private func item() -> DBusExportedObject {
        DBusExportedObject(interfaces: [
            DBusInterface(
                Self.itemInterface,
                methods: [
                    DBusMethod("Activate", inputs: "ii") { [weak self] _ throws(DBusError) in
                        self?.activate()
                        return []
                    },
                    DBusMethod("SecondaryActivate", inputs: "ii") { _ throws(DBusError) in [] },
                    DBusMethod("ContextMenu", inputs: "ii") { _ throws(DBusError) in [] },
                    DBusMethod("Scroll", inputs: "is") { _ throws(DBusError) in [] },
                ],
                properties: [
                    .constant("Category", .string("ApplicationStatus")),
                    .constant("Id", .string("aiden-phone")),
                    .constant("Title", .string("aiden-phone")),
                    DBusProperty("Status", type: "s", get: read { .string($0.status.rawValue) }),
                    .constant("WindowId", .int32(0)),
                    DBusProperty("IconName", type: "s", get: read { .string($0.iconName) }),
                    DBusProperty("AttentionIconName", type: "s", get: read { .string($0.iconName) }),
                    .constant("OverlayIconName", .string("")),
                    .constant("IconThemePath", .string("")),
                    DBusProperty(
                        "ToolTip", type: "(sa(iiay)ss)",
                        get: read { item in
                            .structure([
                                .string(item.iconName), .array(.structure([.int32, .int32, .array(.byte)]), []),
                                .string(item.tooltipTitle), .string(item.tooltipText),
                            ])
                        }),
                    .constant("ItemIsMenu", .boolean(true)),
                    .constant("Menu", .objectPath(Self.menuPath)),
                ],
                signals: [
                    DBusSignalDescription("NewTitle"), DBusSignalDescription("NewIcon"),
                    DBusSignalDescription("NewAttentionIcon"), DBusSignalDescription("NewToolTip"),
                    DBusSignalDescription("NewStatus", arguments: "s"),
                ])
        ])
    }

    /// A property read from the plan's item on every `Get`.
    private func read(_ pick: @escaping @Sendable (TrayPlan.Item) -> DBusValue) -> DBusProperty.Getter {
        { [weak self] in self.map { surface in pick(surface.state.withLock { $0.plan.item }) } }
    }

    /// A click on the item shows the card of the task the item is about (as clicking its notification).
    private func activate() {
        let (requestID, opened) = state.withLock { state in
            (
                state.plan.entries.compactMap { entry -> String? in
                    if case let .open(requestID) = entry.action { requestID } else { nil }
                }.first, state.opened
            )
        }
        if let requestID { opened?(requestID) }
    }

    // MARK: The launcher entry

    /// `Update(app_uri, properties)`: what a dock shows on aiden-phone's launcher.
    static func update(_ entry: LauncherEntry) -> DBusMessage {
        .signal(
            path: launcherPath, interface: launcherInterface, member: "Update",
            body: [.string(LauncherEntry.appURI), properties(entry)])
    }

    static func properties(_ entry: LauncherEntry) -> DBusValue {
        .vardict(
            entry.properties.mapValues { value -> DBusValue in
                switch value {
                case let .integer(number): .int64(number)
                case let .flag(flag): .boolean(flag)
                case let .number(number): .double(number)
                }
            })
    }

    /// `Query`, which a dock that starts later asks: the entry as it is.
    private func launcher() -> DBusExportedObject {
        DBusExportedObject(interfaces: [
            DBusInterface(
                Self.launcherInterface,
                methods: [
                    DBusMethod("Query", outputs: "sa{sv}") { [weak self] _ throws(DBusError) in
                        let entry = self?.state.withLock { $0.launcher } ?? LauncherEntry()
                        return [.string(LauncherEntry.appURI), Self.properties(entry)]
                    }
                ],
                signals: [DBusSignalDescription("Update", arguments: "sa{sv}")])
        ])
    }

    // MARK: The menu

    private func menu() -> DBusExportedObject {
        DBusExportedObject(interfaces: [
            DBusInterface(
                Self.menuInterface,
                methods: [
                    DBusMethod("GetLayout", inputs: "iias", outputs: "u(ia{sv}av)") {
                        [weak self] message throws(DBusError) in
                        guard let self else { throw .failed("the tray is gone") }
                        let parent = message.body[0].int32Value ?? 0
                        let (revision, entries) = state.withLock { ($0.plan.revision, $0.plan.entries) }
                        return [.uint32(revision), try Self.layout(entries, parent: parent)]
                    },
                    DBusMethod("GetGroupProperties", inputs: "aias", outputs: "a(ia{sv})") {
                        [weak self] message throws(DBusError) in
                        let entries = self?.state.withLock { $0.plan.entries } ?? []
                        let ids = Set(message.body[0].arrayItems?.compactMap(\.int32Value) ?? [])
                        return [
                            .array(
                                .structure([.int32, .dictionary(key: .string, value: .variant)]),
                                entries.filter { ids.isEmpty || ids.contains($0.id) }.map {
                                    .structure([.int32($0.id), Self.properties($0)])
                                })
                        ]
                    },
                    DBusMethod("GetProperty", inputs: "is", outputs: "v") { [weak self] message throws(DBusError) in
                        let id = message.body[0].int32Value ?? -1
                        let name = message.body[1].stringValue ?? ""
                        guard let entry = self?.state.withLock({ $0.plan.entries.first { $0.id == id } }),
                            let value = Self.properties(entry).vardict?[name]
                        else { throw .invalidArgs("no property \(name) on menu item \(id)") }
                        return [.variant(value)]
                    },
                    DBusMethod("Event", inputs: "isvu") { [weak self] message throws(DBusError) in
                        self?.event(id: message.body[0].int32Value ?? -1, kind: message.body[1].stringValue ?? "")
                        return []
                    },
                    DBusMethod("EventGroup", inputs: "a(isvu)", outputs: "ai") {
                        [weak self] message throws(DBusError) in
                        for event in message.body[0].arrayItems ?? [] {
                            guard case let .structure(fields) = event, fields.count == 4 else { continue }
                            self?.event(id: fields[0].int32Value ?? -1, kind: fields[1].stringValue ?? "")
                        }
                        return [.array(.int32, [])]
                    },
                    DBusMethod("AboutToShow", inputs: "i", outputs: "b") { _ throws(DBusError) in [.boolean(false)] },
                    DBusMethod("AboutToShowGroup", inputs: "ai", outputs: "aiai") { _ throws(DBusError) in
                        [.array(.int32, []), .array(.int32, [])]
                    },
                ],
                properties: [
                    .constant("Version", .uint32(3)),
                    .constant("TextDirection", .string("ltr")),
                    .constant("Status", .string("normal")),
                    .constant("IconThemePath", .array(.string, [])),
                ],
                signals: [
                    DBusSignalDescription("ItemsPropertiesUpdated", arguments: "a(ia{sv})a(ias)"),
                    DBusSignalDescription("LayoutUpdated", arguments: "ui"),
                    DBusSignalDescription("ItemActivationRequested", arguments: "iu"),
                ])
        ])
    }

    /// A press in the menu: the plan decides, the client gets the answer (on the bus thread: it only enqueues).
    private func event(id: Int32, kind: String) {
        let (effects, answered, opened) = state.withLock { state in
            (state.plan.event(id: id, kind: kind), state.answered, state.opened)
        }
        for case let .perform(action) in effects {
            switch action {
            case let .answer(answer, requestID, revision):
                logger.info(
                    "tray: \(answer.rawValue) for task \(requestID) at revision \(revision.map(String.init) ?? "?")")
                answered?(answer, requestID, revision)
            case let .open(requestID):
                opened?(requestID)
            }
        }
    }

    /// `(ia{sv}av)` for `parent`: the root (0) with every item, or one item alone.
    static func layout(_ entries: [TrayPlan.Entry], parent: Int32) throws(DBusError) -> DBusValue {
        if parent == 0 {
            return .structure([
                .int32(0), .vardict(["children-display": .string("submenu")]),
                .array(
                    .variant,
                    entries.map { .variant(.structure([.int32($0.id), properties($0), .array(.variant, [])])) }),
            ])
        }
        guard let entry = entries.first(where: { $0.id == parent }) else {
            throw .invalidArgs("no menu item \(parent) (the menu changed: ask for the root)")
        }
        return .structure([.int32(entry.id), properties(entry), .array(.variant, [])])
    }

    /// A menu item's dbusmenu properties: `label` and `enabled`, or `type` `separator`.
    static func properties(_ entry: TrayPlan.Entry) -> DBusValue {
        if entry.isSeparator { return .vardict(["type": .string("separator")]) }
        return .vardict(["label": .string(entry.label), "enabled": .boolean(entry.action != nil)])
    }
}
