import WireFormat

/// What the tray item shows (a StatusNotifierItem with a `com.canonical.dbusmenu` menu, docs/desktop.md) and what
/// its menu's items send, as a pure state machine: the session's cards go in after each step (the same ones the
/// notifications and the bar status get), a host's menu presses as they come; out come what changed (for the
/// item's `New…` signals and the menu's `LayoutUpdated`) and the person's answers.
///
/// - `Status`: `NeedsAttention` while a task asks the person (a handoff, the app wanted), `Active` while one runs,
///   `Passive` otherwise (connected with no task, every task ended, no board).
/// - The tooltip's title is the bar's line (`BarStatus.text`), its text the bar's tooltip (one line per task).
/// - The menu has, per task seen, its title, then what it takes now (`Answer.available(on:)`: Stop, Done,
///   Refuse, Dismiss) and Show card; a press sends that answer with the revision the menu was built for, once.
///   Every new layout gets ids never used before, so a press on a menu built for an older layout matches nothing
///   (the host is told the layout changed and asks again).
package struct TrayPlan: Sendable, Equatable {
    /// The item's `Status` property (the spec's three words).
    package enum Status: String, Sendable, Equatable {
        case passive = "Passive"
        case active = "Active"
        case needsAttention = "NeedsAttention"
    }

    /// What one menu item does when pressed.
    package enum Action: Sendable, Equatable {
        case answer(Answer, requestID: String, revision: UInt64?)
        /// Show card: the person comes back to the task (as clicking its notification).
        case open(requestID: String)
    }

    /// One item of the menu: a label (disabled when it does nothing), an action, or a separator.
    package struct Entry: Sendable, Equatable {
        package var id: Int32
        package var label: String
        package var action: Action?
        package var isSeparator = false
    }

    /// The item's properties a host reads.
    package struct Item: Sendable, Equatable {
        package var status: Status
        package var iconName: String
        package var tooltipTitle: String
        package var tooltipText: String
    }

    package enum Effect: Sendable, Equatable {
        /// `NewStatus` (with the new status), `NewIcon`, `NewToolTip`: what changed of the item.
        case statusChanged(Status)
        case iconChanged
        case tooltipChanged
        /// `LayoutUpdated(revision, 0)`.
        case layoutChanged(revision: UInt32)
        /// A menu press: the person's answer or Show card.
        case perform(Action)
    }

    package private(set) var item = Item(
        status: .passive, iconName: TrayPlan.icon(.disconnected), tooltipTitle: "Waiting for the board",
        tooltipText: "Waiting for the board")
    /// The menu's revision (`GetLayout`'s first answer) and its items under the root (id 0).
    package private(set) var revision: UInt32 = 1
    package private(set) var entries: [Entry] = []
    /// The next id a new layout starts from (ids are never reused).
    private var nextID: Int32 = 1
    /// Ids already pressed in this layout: a second press sends nothing.
    private var pressed: Set<Int32> = []
    /// What the menu was built from, to build it only when that changes.
    private var menuSource: [MenuLine] = []
    /// The words of the menu's one item while no task is seen.
    private var menuPlaceholder: String?

    package init() {
        entries = rebuild([], status: BarStatus(cards: [], current: nil))
    }

    /// The cards after a step (`cards`: every task card; `current`: the session's own card).
    package mutating func show(_ cards: [Card], current: Card?) -> [Effect] {
        let bar = BarStatus(cards: cards, current: current)
        let status: Status =
            switch bar.kind {
            case .handoff, .needsApp: .needsAttention
            case .running: .active
            case .done, .standby, .disconnected, .offline: .passive
            }
        let next = Item(
            status: status, iconName: Self.icon(bar.kind), tooltipTitle: bar.text, tooltipText: bar.tooltip)
        var effects: [Effect] = []
        if next.status != item.status { effects.append(.statusChanged(next.status)) }
        if next.iconName != item.iconName { effects.append(.iconChanged) }
        if next.tooltipTitle != item.tooltipTitle || next.tooltipText != item.tooltipText {
            effects.append(.tooltipChanged)
        }
        item = next
        let source = Self.lines(cards, bar: bar)
        if source != menuSource || (source.isEmpty ? bar.text : nil) != menuPlaceholder {
            entries = rebuild(source, status: bar)
            revision &+= 1
            pressed = []
            effects.append(.layoutChanged(revision: revision))
        }
        return effects
    }

    /// A host's `Event(id, eventId, …)`: `clicked` on an item with an action performs it, once per layout.
    package mutating func event(id: Int32, kind: String) -> [Effect] {
        guard kind == "clicked", let action = entries.first(where: { $0.id == id })?.action,
            pressed.insert(id).inserted
        else { return [] }
        return [.perform(action)]
    }

    /// What the menu shows of one task: its words and what it takes now.
    private struct MenuLine: Sendable, Equatable {
        var requestID: String
        var label: String
        var answers: [Answer]
        var revision: UInt64?
    }

    private static func lines(_ cards: [Card], bar: BarStatus) -> [MenuLine] {
        cards.compactMap { card in
            guard let requestID = card.snapshot?.requestID else { return nil }
            return MenuLine(
                requestID: requestID, label: BarStatus.tooltipLine(card), answers: Answer.available(on: card),
                revision: card.snapshot?.revision)
        }
    }

    private mutating func rebuild(_ lines: [MenuLine], status: BarStatus) -> [Entry] {
        var built: [Entry] = []
        func add(_ label: String, _ action: Action? = nil, separator: Bool = false) {
            built.append(Entry(id: nextID, label: label, action: action, isSeparator: separator))
            nextID = nextID == Int32.max ? 1 : nextID + 1
        }
        if lines.isEmpty { add(status.text) }
        for (index, line) in lines.enumerated() {
            if index > 0 { add("", separator: true) }
            add(line.label)
            for answer in line.answers {
                add(answer.verb, .answer(answer, requestID: line.requestID, revision: line.revision))
            }
            add("Show card", .open(requestID: line.requestID))
        }
        menuSource = lines
        menuPlaceholder = lines.isEmpty ? status.text : nil
        return built
    }

    /// Names from the freedesktop icon naming specification, which every icon theme has.
    static func icon(_ kind: BarStatus.Kind) -> String {
        switch kind {
        case .handoff, .needsApp: "dialog-question"
        case .running: "media-playback-start"
        case .done: "emblem-default"
        case .standby: "phone"
        case .disconnected, .offline: "network-offline"
        }
    }
}
