import WireFormat

/// When and how each card goes to one notification server (docs/desktop.md), as a pure state machine: the
/// session's task cards and the step's alerts go in after each step, the server's replies and signals as they
/// come, the time with each; out come the calls to make (`Notify` replacing the task's id, `CloseNotification`)
/// and the person's answers. `DesktopCardSurface` performs them on one serial path and feeds the results back.
///
/// - One notification per task for its whole life: the first post's id is replaced in place after that. While
///   the first post waits for its id, a newer card waits too (never two notifications for one task).
/// - An unchanged card is never sent again (Plasma drops an identical one within a second, GNOME would pop it
///   again). Routine updates are `low`, the first post `normal`; an alert makes its card's update urgent
///   (`DesktopCard.urgency(of:)`), once per alert, and an alert whose task has no card is shown alone.
/// - An ended card leaves at its dismissal time (`dismiss_after_seconds` after the phone saw it end), or when the
///   task leaves the session's list. A card the person dismissed (its Dismiss button, or closed by the person
///   once ended) is answered `dismiss` on the board and stays gone; an active card the person closed comes back
///   with its next alert.
/// - A server that appears (at start, after a restart: `NameOwnerChanged`) gets every live card again; alerts
///   given while there was none keep their urgency for that post.
package struct DesktopCardPlan: Sendable, Equatable {
    /// What the server is known to do: it honours the `value` hint harmlessly (every server but xfce4-notifyd,
    /// where the hint hides the buttons); a task's card replaces its notification by id, or on mako by its tag
    /// alone: mako 1.7 (Debian 12) crashes when a notification replaces another by id and carries the tag that
    /// one already has, and the tag alone replaces it in place there, keeping its id (`MakoCardTests`).
    package struct Server: Sendable, Equatable {
        package var name: String
        package var takesProgress: Bool
        package var replacesByTag: Bool

        package init(name: String) {
            self.name = name
            // Debian 12's xfce4-notifyd (0.7.3) calls itself "Xfce Notify Daemon".
            self.takesProgress = !["xfce4-notifyd", "Xfce Notify Daemon"].contains(name)
            self.replacesByTag = name == "mako"
        }
    }

    package enum Input: Sendable, Equatable {
        /// After a session step: every task card, and the alerts the step gave (their records already saved).
        case cards([Card], alerts: [Alert])
        /// A notification server answers (at start, or a new owner of the name).
        case serverAppeared(Server)
        /// The server or the bus went away.
        case serverVanished
        /// `Notify` for `subject` returned this id.
        case posted(DesktopCard.Subject, id: UInt32)
        /// `Notify` for `subject` failed.
        case postFailed(DesktopCard.Subject)
        /// `NotificationClosed` (reason 1 expired, 2 dismissed by the person, 3 closed by a call, 4 other).
        case closed(id: UInt32, reason: UInt32)
        /// `ActionInvoked`.
        case invoked(id: UInt32, key: String)
        /// The time `nextDeadline` named has come.
        case deadlineReached
    }

    /// One `Notify` call.
    package struct Post: Sendable, Equatable {
        package var card: DesktopCard
        package var urgency: DesktopCard.Urgency
        /// 0: a new notification.
        package var replacesID: UInt32
    }

    package enum Effect: Sendable, Equatable {
        case notify(Post)
        case close(id: UInt32)
        /// The person pressed an answer (or closed an ended card): post it, for the revision it showed.
        case answer(Answer, requestID: String, revision: UInt64?)
        /// The person opened the task's card (clicked the notification).
        case open(requestID: String)
    }

    struct Entry: Sendable, Equatable {
        var id: UInt32?
        /// A `Notify` is under way; `wanted` waits for its id.
        var inFlight = false
        /// The card as last sent (nil: never, or the server forgot it).
        var shown: DesktopCard?
        /// The newest card not sent yet, and the highest urgency owed to it.
        var wanted: DesktopCard?
        var owed: DesktopCard.Urgency?
        var everPosted = false
        /// An ended card leaves then (nil: when the task leaves the list).
        var closeAt: Duration?
        /// Gone from the desktop for good: dismissed, or its dismissal time passed.
        var gone = false
        /// The person closed the live card: it comes back with its next alert.
        var hiddenUntilAlert = false
        /// Shown only for an alert (no task card): never closed by the list.
        var alertOnly = false
        /// An answer pressed at this revision (a second press of it sends nothing).
        var pressed: Set<String> = []
        /// When a button was last pressed, while the server's close for it may still come: a server that closes a
        /// notification on a press (one that does not honour `resident`) does so as it reports the press, so that
        /// close is not the person dismissing the live card. A server that keeps the card shows it by answering a
        /// later post without closing it first, or by letting `pressCloseWindow` pass; a close after that is the
        /// person's own.
        var pressedAt: Duration?
    }

    /// How long after a press a close is still taken for the server's reaction to it (it comes at once; the margin
    /// is for a loaded bus).
    static let pressCloseWindow: Duration = .seconds(1)

    package private(set) var server: Server?
    private(set) var entries: [DesktopCard.Subject: Entry] = [:]
    /// First posted first, so re-posts after a server restart keep the order.
    private(set) var order: [DesktopCard.Subject] = []

    package init() {}

    /// When to feed `.deadlineReached` (nil: no timer).
    package var nextDeadline: Duration? {
        entries.values.filter { !$0.gone }.compactMap(\.closeAt).min()
    }

    /// The notification id of a subject (for tests and logs).
    package func id(of subject: DesktopCard.Subject) -> UInt32? { entries[subject]?.id }

    package mutating func handle(_ input: Input, at now: Duration) -> [Effect] {
        var effects: [Effect] = []
        switch input {
        case let .cards(cards, alerts):
            update(cards, alerts: alerts, at: now, &effects)
        case let .serverAppeared(server):
            self.server = server
            for subject in order {
                guard var entry = entries[subject], !entry.gone, !entry.hiddenUntilAlert else { continue }
                entry.id = nil
                entry.inFlight = false
                if entry.wanted == nil { entry.wanted = entry.shown }
                entry.shown = nil
                entries[subject] = entry
                send(subject, &effects)
            }
        case .serverVanished:
            server = nil
            for (subject, var entry) in entries {
                entry.inFlight = false
                entry.id = nil
                entries[subject] = entry
            }
        case let .posted(subject, id):
            guard var entry = entries[subject] else { return [.close(id: id)] }
            entry.inFlight = false
            // The server answered a post made after the press without closing the card first: it kept it.
            entry.pressedAt = nil
            entry.id = id
            entry.everPosted = true
            entries[subject] = entry
            if entry.gone {
                entries[subject]?.id = nil
                effects.append(.close(id: id))
            } else {
                send(subject, &effects)
            }
        case let .postFailed(subject):
            guard var entry = entries[subject] else { break }
            entry.inFlight = false
            if entry.wanted == nil { entry.wanted = entry.shown }
            entry.shown = nil
            entries[subject] = entry
        case let .closed(id, reason):
            closed(id, reason: reason, at: now, &effects)
        case let .invoked(id, key):
            invoked(id, key: key, at: now, &effects)
        case .deadlineReached:
            for subject in order {
                guard let entry = entries[subject], !entry.gone, let at = entry.closeAt, at <= now else { continue }
                leave(subject, &effects)
            }
        }
        return effects
    }

    private mutating func update(_ cards: [Card], alerts: [Alert], at now: Duration, _ effects: inout [Effect]) {
        var urgent: [DesktopCard.Subject: (DesktopCard.Urgency, Alert)] = [:]
        for alert in alerts {
            let subject: DesktopCard.Subject =
                alert.requestID.map(DesktopCard.Subject.task) ?? .connection(alert.connectionID ?? "")
            let urgency = DesktopCard.urgency(of: alert.transition)
            if let known = urgent[subject], known.0 >= urgency { continue }
            urgent[subject] = (urgency, alert)
        }
        var listed: Set<DesktopCard.Subject> = []
        for card in cards {
            guard var content = DesktopCard(card) else { continue }
            let subject = content.subject
            listed.insert(subject)
            var entry = entries[subject] ?? Entry()
            if entries[subject] == nil { order.append(subject) }
            // The same id, another task (a new start after the first was removed): a fresh card.
            if entry.gone, card.state.isActive { entry = Entry() }
            guard !entry.gone else {
                entries[subject] = entry
                continue
            }
            let alert = urgent.removeValue(forKey: subject)
            if entry.hiddenUntilAlert {
                guard alert != nil else {
                    entries[subject] = entry
                    continue
                }
                entry.hiddenUntilAlert = false
            }
            if !card.state.isActive, entry.closeAt == nil, let seconds = card.snapshot?.dismissAfterSeconds {
                entry.closeAt = now + .seconds(Int64(clamping: seconds))
            }
            if card.state.isActive { entry.closeAt = nil }
            if server?.takesProgress == false { content.progress = nil }
            entry.alertOnly = false
            let latest = entry.wanted ?? entry.shown
            if latest != content || alert != nil {
                entry.wanted = content
                let urgency = alert?.0 ?? (entry.everPosted || entry.inFlight ? .low : .normal)
                entry.owed = max(entry.owed ?? urgency, urgency)
                if latest?.revision != content.revision { entry.pressed = [] }
            }
            entries[subject] = entry
            send(subject, &effects)
        }
        // Alerts with no card: shown alone, keyed like the card that may come.
        for (subject, (urgency, alert)) in urgent.sorted(by: { ($0.value.1.eventID ?? 0) < ($1.value.1.eventID ?? 0) })
        {
            var entry = entries[subject] ?? Entry()
            if entries[subject] == nil { order.append(subject) }
            entry.gone = false
            entry.hiddenUntilAlert = false
            entry.alertOnly = entry.shown == nil || entry.alertOnly
            entry.wanted = DesktopCard(alert: alert)
            entry.owed = max(entry.owed ?? urgency, urgency)
            entries[subject] = entry
            listed.insert(subject)
            send(subject, &effects)
        }
        // Tasks the session no longer lists have left the board (or this phone's view): their cards leave.
        for subject in order where !listed.contains(subject) {
            guard let entry = entries[subject], case .task = subject, !entry.alertOnly else { continue }
            leave(subject, &effects)
            entries[subject] = nil
        }
        order.removeAll { entries[$0] == nil }
    }

    /// Sends what the subject is owed, unless a post is under way or there is no server.
    private mutating func send(_ subject: DesktopCard.Subject, _ effects: inout [Effect]) {
        guard let server, var entry = entries[subject], !entry.inFlight, !entry.gone, var card = entry.wanted else {
            return
        }
        if !server.takesProgress { card.progress = nil }
        if card == entry.shown, entry.owed == nil { return }
        let urgency = entry.owed ?? .low
        // The tag is a task card's (`notification(_:)`): the connection card has none, so replaces by id.
        let byTag = if case .task = card.subject { server.replacesByTag } else { false }
        effects.append(.notify(Post(card: card, urgency: urgency, replacesID: byTag ? 0 : entry.id ?? 0)))
        entry.inFlight = true
        entry.shown = card
        entry.wanted = nil
        entry.owed = nil
        entries[subject] = entry
    }

    /// Takes the card off the desktop for good.
    private mutating func leave(_ subject: DesktopCard.Subject, _ effects: inout [Effect]) {
        guard var entry = entries[subject] else { return }
        if let id = entry.id { effects.append(.close(id: id)) }
        entry.gone = true
        entry.id = nil
        entry.wanted = nil
        entry.owed = nil
        entries[subject] = entry
    }

    private func subject(of id: UInt32) -> DesktopCard.Subject? {
        entries.first { $0.value.id == id }?.key
    }

    private mutating func closed(_ id: UInt32, reason: UInt32, at now: Duration, _ effects: inout [Effect]) {
        guard let subject = subject(of: id), var entry = entries[subject] else { return }
        entry.id = nil
        let ended =
            !(entry.shown?.buttons.contains(.answer(.stop)) ?? false)
            && (entry.shown?.buttons.contains(.answer(.dismiss)) ?? false)
        if reason == 2, case let .task(requestID) = subject, ended {
            // The person dismissed the ended card: the board records it, and it stays gone.
            entry.gone = true
            entries[subject] = entry
            effects.append(.answer(.dismiss, requestID: requestID, revision: entry.shown?.revision))
            return
        }
        if let pressed = entry.pressedAt, now - pressed <= Self.pressCloseWindow, case .task = subject, !entry.alertOnly
        {
            // Closed because a button was pressed: the live card goes back on the desktop at once.
            entry.pressedAt = nil
            entry.wanted = entry.shown
            entry.shown = nil
            entries[subject] = entry
            send(subject, &effects)
            return
        }
        if reason == 2 || entry.alertOnly {
            entry.hiddenUntilAlert = !entry.alertOnly
            entry.shown = nil
            entries[subject] = entry
            if entry.alertOnly || subject.isConnection { entries[subject] = nil; order.removeAll { $0 == subject } }
            return
        }
        // Expired or closed by the server: the next change posts it again.
        entry.shown = nil
        entries[subject] = entry
    }

    private mutating func invoked(_ id: UInt32, key: String, at now: Duration, _ effects: inout [Effect]) {
        guard let subject = subject(of: id), case let .task(requestID) = subject, var entry = entries[subject],
            let shown = entry.shown, let button = shown.buttons.first(where: { $0.key == key })
        else { return }
        switch button {
        case .open:
            entry.pressedAt = now
            entries[subject] = entry
            effects.append(.open(requestID: requestID))
        case let .answer(answer):
            guard entry.pressed.insert(answer.rawValue).inserted else { return }
            entry.pressedAt = now
            entries[subject] = entry
            effects.append(.answer(answer, requestID: requestID, revision: shown.revision))
            if answer == .dismiss {
                leave(subject, &effects)
            }
        }
    }
}

extension DesktopCard.Subject {
    var isConnection: Bool {
        if case .connection = self { true } else { false }
    }
}
