import WireFormat

/// One card as a desktop notification shows it (`org.freedesktop.Notifications`): the words, the hints and the
/// buttons, decided from the same `Card` the terminal draws (docs/desktop.md). Pure; `DesktopNotifications`
/// sends it, and `DesktopCardPlan` decides when and with which urgency.
///
/// The summary is fixed words (plain text on every server); the board's text goes only in the body, cleaned
/// (`BoardText`) and escaped by the sender for servers that render body markup.
package struct DesktopCard: Sendable, Equatable {
    /// What a notification is about: one task through its whole life, or one USB session's `connected`.
    package enum Subject: Sendable, Hashable {
        case task(String)
        case connection(String)
    }

    /// The spec's urgency levels (the `urgency` hint's byte).
    package enum Urgency: UInt8, Sendable, Comparable {
        case low = 0
        case normal = 1
        case critical = 2

        package static func < (lhs: Urgency, rhs: Urgency) -> Bool { lhs.rawValue < rhs.rawValue }
    }

    /// A button: `default` is the spec's key for clicking the notification itself (Open); the answers' keys
    /// are the wire's names (`stop`, `done`, `refuse`, `dismiss`), sent back in `ActionInvoked`.
    package enum Button: Sendable, Equatable {
        case open
        case answer(Answer)

        package var key: String {
            switch self {
            case .open: "default"
            case let .answer(answer): answer.rawValue
            }
        }

        package var label: String {
            switch self {
            case .open: "Open"
            case let .answer(answer): answer.verb
            }
        }
    }

    package var subject: Subject
    package var summary: String
    package var body: String
    /// A spec category: `transfer` while running, `im.received` while the person is asked, `transfer.complete`,
    /// `transfer.error`, `device.added`.
    package var category: String
    /// 0–100 for the `value` hint, nil when the task shows no progress (or the server must not get it).
    package var progress: Int32?
    package var buttons: [Button]
    /// The task's revision the buttons answer (docs/protocol.md §3.8), nil when not known.
    package var revision: UInt64?
    /// `expire_timeout`: 0 stays until closed (a live card), -1 the server's default (an alert alone).
    package var expireMilliseconds: Int32
    /// The `resident` hint: a press does not take the card off the screen (a task's card).
    package var resident: Bool

    package init(
        subject: Subject, summary: String, body: String, category: String, progress: Int32? = nil,
        buttons: [Button] = [], revision: UInt64? = nil, expireMilliseconds: Int32 = 0, resident: Bool = false
    ) {
        self.resident = resident
        self.subject = subject
        self.summary = summary
        self.body = body
        self.category = category
        self.progress = progress
        self.buttons = buttons
        self.revision = revision
        self.expireMilliseconds = expireMilliseconds
    }

    /// The card of one task (nil for a card without a task: standby, disconnected).
    package init?(_ card: Card) {
        guard let task = card.snapshot, let requestID = task.requestID else { return nil }
        let title =
            BoardText.line(task.taskTitle, limit: Alert.titleLimit)
            ?? "Task \(BoardText.line(requestID, limit: 64) ?? "?")"
        var lines = [title]
        switch card.state {
        case .handoff:
            lines += [BoardText.line(task.currentStep, limit: Alert.stepLimit)].compactMap { $0 }
        case .running, .needsApp:
            lines += [BoardText.line(task.currentStep, limit: Alert.stepLimit)].compactMap { $0 }
            // The start, not a count: a notification is replaced only when it changes, so a ticking time
            // would go stale (or re-send it every second).
            if let tool = ToolLine.text(of: task, at: nil) {
                lines.append(tool + (ToolLine.since(task.toolStartedAt).map { " · since \($0)" } ?? ""))
            }
        case .failed:
            lines += [BoardText.line(task.lastError, limit: Alert.errorLimit)].compactMap { $0 }
        case .completed, .canceled, .standby, .disconnected:
            break
        }
        if let recorded = card.recordedAnswer, card.state.isActive {
            lines.append(
                recorded.answer == .known(.stop) ? "Stop requested" : "Answered: \(recorded.name)")
        }
        if card.link.usb == .down {
            lines.append("Not up to date: the USB link to the board is down")
        } else if card.problem != nil {
            lines.append("Not up to date: the board does not answer")
        }
        let progress: Int32? =
            card.state.isActive && task.showsProgress == true
            ? task.progress.flatMap { $0.isFinite ? Int32(min(100, max(0, ($0 * 100).rounded()))) : nil } : nil
        self.init(
            subject: .task(requestID), summary: Self.summary(card.state),
            body: lines.map(BoardText.clean).joined(separator: "\n"),
            category: Self.category(card.state), progress: progress,
            buttons: [.open] + Answer.available(on: card).map(Button.answer), revision: task.revision,
            resident: true)
    }

    /// An alert that has no task card to update (its task was never seen, or the alert is `connected`): shown as
    /// it was before cards, once, for the server's default time.
    package init(alert: Alert) {
        let subject: Subject =
            alert.requestID.map(Subject.task) ?? .connection(alert.connectionID ?? "")
        let buttons: [Button] =
            alert.requestID == nil ? [] : [.open] + alert.answers.map(Button.answer)
        self.init(
            subject: subject, summary: Self.headline(alert.transition), body: Self.body(alert),
            category: Self.category(alert.transition), buttons: buttons, expireMilliseconds: -1)
    }

    /// Fixed words per state, never board text.
    static func summary(_ state: CardState) -> String {
        switch state {
        case .running: "Task running"
        case .needsApp: "Bring the companion app to the foreground"
        case .handoff: "Your turn on the phone"
        case .completed: "Task completed"
        case .failed: "Task failed"
        case .canceled: "Task canceled"
        case .standby, .disconnected: "Task"
        }
    }

    static func category(_ state: CardState) -> String {
        switch state {
        case .handoff, .needsApp: "im.received"
        case .completed: "transfer.complete"
        case .failed: "transfer.error"
        case .running, .canceled, .standby, .disconnected: "transfer"
        }
    }

    /// Fixed words for an alert's transition: the summary of an alert shown alone, and `AlertText`'s headline.
    package static func headline(_ transition: AlertTransition) -> String {
        switch transition {
        case .connected: "Connected to the board"
        case .handoff: "Your turn on the phone"
        case .foregroundRecovery: "Bring the companion app to the foreground"
        case .completed: "Task completed"
        case .failed: "Task failed"
        }
    }

    static func category(_ transition: AlertTransition) -> String {
        switch transition {
        case .connected: "device.added"
        case .handoff, .foregroundRecovery: "im.received"
        case .completed: "transfer.complete"
        case .failed: "transfer.error"
        }
    }

    /// The alert's words without the request id (`Open Settings: Enter the Wi-Fi password`); `Task chat_1` or
    /// `Session usb-…` when nothing else is known. `AlertText.body` is this.
    package static func body(_ alert: Alert) -> String {
        let detail: String? =
            switch alert.transition {
            case .handoff: alert.step
            case .failed: alert.error
            case .connected, .foregroundRecovery, .completed: nil
            }
        let words = [alert.title, detail].compactMap { $0 }
        if !words.isEmpty { return BoardText.oneLine(words.joined(separator: ": ")) }
        let subject = BoardText.line(alert.requestID ?? alert.connectionID, limit: 64) ?? ""
        return subject.isEmpty ? "" : (alert.transition == .connected ? "Session " : "Task ") + subject
    }

    /// The urgency an alert gives its card's update: critical when the person is asked, normal at the end and
    /// for a new session (GNOME pops a banner for every non-low update, so routine updates are low).
    static func urgency(of transition: AlertTransition) -> Urgency {
        switch transition {
        case .handoff, .foregroundRecovery: .critical
        case .completed, .failed: .normal
        case .connected: .low
        }
    }
}

extension CardState {
    /// A task that has not ended: its card stays on the desktop.
    var isActive: Bool {
        switch self {
        case .running, .needsApp, .handoff: true
        case .completed, .failed, .canceled, .standby, .disconnected: false
        }
    }
}
