import WireFormat

/// What a dock's launcher entry for aiden-phone shows (`com.canonical.Unity.LauncherEntry`: Plank, Dash to Dock,
/// KDE's task manager, docs/desktop.md): how many tasks wait for the person as the count, the running task's
/// progress, urgent while one asks. Pure, from the same cards as the bar status; the shell sends `Update` only when
/// it changes.
package struct LauncherEntry: Sendable, Equatable {
    /// The tasks waiting for the person (a handoff, the app wanted).
    package var count: Int64
    /// 0–1: the task the bar is about, while it is active and shows progress.
    package var progress: Double?
    /// A task asks the person.
    package var urgent: Bool

    /// The desktop id the entry is for, as the signal names it.
    package static let appURI = "application://aiden-phone.desktop"

    package init(count: Int64 = 0, progress: Double? = nil, urgent: Bool = false) {
        self.count = count
        self.progress = progress
        self.urgent = urgent
    }

    package init(cards: [Card], current: Card?) {
        let bar = BarStatus(cards: cards, current: current)
        let waiting = cards.filter { $0.state == .handoff || $0.state == .needsApp }.count
        self.init(
            count: Int64(waiting), progress: bar.percentage.map { Double($0) / 100 },
            urgent: cards.contains { $0.state == .handoff || $0.state == .needsApp })
    }

    /// The `Update` signal's properties, every one always sent (a dock keeps what it was told last).
    package var properties: [String: Property] {
        [
            "count": .integer(count), "count-visible": .flag(count > 0), "progress": .number(progress ?? 0),
            "progress-visible": .flag(progress != nil), "urgent": .flag(urgent),
        ]
    }

    /// A property's value (`x`, `b` or `d` on the bus).
    package enum Property: Sendable, Equatable {
        case integer(Int64)
        case flag(Bool)
        case number(Double)
    }
}
