import WireFormat

/// The task cards as one line for a status bar (`aiden-phone status`, waybar's and i3blocks' custom modules) and
/// as the tray's words (docs/desktop.md): the first task that needs the person, else the first one running, with
/// how many others run and wait. Pure, decided from the same cards the notifications are (`DesktopCard`), plus the
/// session's own card for the times no task is seen (connected or not).
package struct BarStatus: Sendable, Equatable {
    /// What the line is about, the `class` a bar styles by.
    package enum Kind: String, Sendable, Equatable, CaseIterable {
        /// A handoff: the person is asked.
        case handoff
        /// The companion app must come to the foreground.
        case needsApp = "needs-app"
        case running
        /// Every task seen has ended.
        case done
        /// Connected, no task.
        case standby
        /// No working path to the board (or no answer yet).
        case disconnected
        /// `aiden-phone status` could not reach the running client.
        case offline
    }

    package var kind: Kind
    /// One short line (i3blocks' `full_text`, waybar's `text`).
    package var text: String
    /// One line per task seen, then what keeps the card from being up to date.
    package var tooltip: String
    /// 0–100: the shown task's progress, while it is active and shows progress.
    package var percentage: Int?
    /// The task the line is about, at the revision its card shows (what an answer without an ID is for), nil when
    /// none is.
    package var task: ShownTask?

    package init(kind: Kind, text: String, tooltip: String, percentage: Int? = nil, task: ShownTask? = nil) {
        self.kind = kind
        self.text = text
        self.tooltip = tooltip
        self.percentage = percentage
        self.task = task
    }

    /// The id of the task the line is about.
    package var requestID: String? { task?.requestID }

    /// The line `aiden-phone status` prints when it reaches no running client (at start it exits instead).
    package static let offline = BarStatus(
        kind: .offline, text: "aiden-phone is not running", tooltip: "aiden-phone is not running")

    /// Longest title and step kept in the line (Unicode scalars, cut with `...`).
    static let titleLimit = 40
    static let stepLimit = 40

    /// `cards`: every task card (`PhoneSession.taskCards`); `current`: the session's card (nil before it starts).
    package init(cards: [Card], current: Card?) {
        let tasks = cards.filter { $0.snapshot?.requestID != nil }
        let focus =
            tasks.firstIndex { $0.state == .handoff || $0.state == .needsApp }
            ?? tasks.firstIndex { $0.state == .running }
        let stale = Self.staleness(tasks.first ?? current)
        let lines = tasks.map(Self.tooltipLine) + [stale].compactMap { $0 }
        guard let focus else {
            if let last = tasks.first {
                self.init(
                    kind: .done, text: "All done", tooltip: lines.joined(separator: "\n"),
                    task: last.snapshot.flatMap(Self.shown))
                return
            }
            let connected = current.map { $0.state != .disconnected } ?? false
            let words =
                connected
                ? "Connected to the board"
                : current?.link.usb == .down ? "The USB link to the board is down" : "Waiting for the board"
            self.init(
                kind: connected ? .standby : .disconnected, text: words,
                tooltip: ([words] + (connected ? [stale].compactMap { $0 } : [])).joined(separator: "\n"))
            return
        }
        let card = tasks[focus]
        let task = card.snapshot ?? SnapshotView()
        let others = tasks.indices.filter { $0 != focus }
        let counted =
            card.others
            ?? OtherTasks(
                active: others.filter { tasks[$0].state == .running }.count,
                waiting: others.filter { tasks[$0].state == .handoff || tasks[$0].state == .needsApp }.count)
        let percentage =
            task.showsProgress == true
            ? task.progress.flatMap { $0.isFinite ? Int(min(100, max(0, ($0 * 100).rounded()))) : nil } : nil
        let title = Self.title(task)
        let step = BoardText.line(task.currentStep, limit: Self.stepLimit)
        var text: String
        switch card.state {
        case .handoff: text = "Your turn: " + title + (step.map { " — " + $0 } ?? "")
        case .needsApp: text = "Open the app: " + title
        default: text = title + (step.map { " — " + $0 } ?? "") + (percentage.map { " \($0)%" } ?? "")
        }
        if let more = counted.cardLine { text += " · " + more }
        let kind: Kind =
            switch card.state {
            case .handoff: .handoff
            case .needsApp: .needsApp
            default: .running
            }
        self.init(
            kind: kind, text: text, tooltip: lines.joined(separator: "\n"), percentage: percentage,
            task: Self.shown(task))
    }

    /// The task a card shows, as an answer names it.
    static func shown(_ task: SnapshotView) -> ShownTask? {
        task.requestID.map { ShownTask(requestID: $0, revision: task.revision, title: task.taskTitle) }
    }

    /// The task's title on one line, else `Task <id>`.
    static func title(_ task: SnapshotView) -> String {
        BoardText.line(task.taskTitle, limit: titleLimit)
            ?? "Task \(BoardText.line(task.requestID, limit: 64) ?? "?")"
    }

    /// `Open Settings: your turn — Enter the Wi-Fi password`.
    static func tooltipLine(_ card: Card) -> String {
        let task = card.snapshot ?? SnapshotView()
        let detail: String? =
            switch card.state {
            case .running, .handoff, .needsApp: BoardText.line(task.currentStep, limit: Alert.stepLimit)
            case .failed: BoardText.line(task.lastError, limit: Alert.errorLimit)
            case .completed, .canceled, .standby, .disconnected: nil
            }
        return title(task) + ": " + stateWords(card.state) + (detail.map { " — " + $0 } ?? "")
    }

    static func stateWords(_ state: CardState) -> String {
        switch state {
        case .running: "running"
        case .needsApp: "open the app"
        case .handoff: "your turn"
        case .completed: "completed"
        case .failed: "failed"
        case .canceled: "canceled"
        case .standby: "no task"
        case .disconnected: "not connected"
        }
    }

    /// Why what is shown may be old: the cable is out, or the board does not answer.
    static func staleness(_ card: Card?) -> String? {
        guard let card else { return nil }
        if card.link.usb == .down { return "Not up to date: the USB link to the board is down" }
        if card.problem != nil { return "Not up to date: the board does not answer" }
        return nil
    }

    /// The object waybar's custom module reads with `return-type: json`, on one line: `text`, `tooltip`, `class`,
    /// and `percentage` when the task shows progress.
    package var waybarJSON: String {
        var members = [
            "\"text\":" + JSONString.quote(text), "\"tooltip\":" + JSONString.quote(tooltip),
            "\"class\":" + JSONString.quote(kind.rawValue),
        ]
        if let percentage { members.append("\"percentage\":\(percentage)") }
        return "{" + members.joined(separator: ",") + "}"
    }
}
