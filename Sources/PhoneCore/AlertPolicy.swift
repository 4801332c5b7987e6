/// Decides which alerts to give, once per board event (docs/protocol.md §5.3), and keeps the events cursor.
///
/// The client reads the board's events ring after every fetch trigger and passes each answer to
/// `receive(_:)`. Because the ring holds every alert-worthy transition, a handoff that began and
/// ended between two fetches still alerts. Every alert key is recorded in `record` (the caller
/// persists it after each call), so neither a reread after a cursor reset nor a client restart
/// repeats an alert.
package struct AlertPolicy: Sendable, Equatable {
    /// What the caller should do.
    package enum Output: Sendable, Equatable {
        case alert(Alert)
        /// The board's ring dropped transitions this client had not read: some alerts were missed.
        case eventsMissed
        /// The cursor was reset (stale generation or new epoch): read the events again now, with `cursor`.
        case readAgain
    }

    /// What to do with the transitions found on the very first read (an empty record).
    package enum FirstRead: Sendable, Equatable {
        /// Record them without alerting: a freshly installed client should not replay the ring's
        /// history (up to 256 old transitions) as alerts. The card still shows the current task.
        case recordSilently
        /// Alert for every one of them.
        case alert
    }

    package private(set) var record: AlertRecord
    package let firstRead: FirstRead
    /// This phone's id: a transition addressed to another phone does not alert here. nil alerts for all.
    package let phoneID: String?

    package init(record: AlertRecord = AlertRecord(), firstRead: FirstRead = .recordSilently, phoneID: String? = nil) {
        self.record = record
        self.firstRead = firstRead
        self.phoneID = phoneID
    }

    /// The `since` and `generation` to send with the next events read.
    package var cursor: EventCursor { record.cursor }

    /// A USB ECM session began; alerts once per connection id.
    package mutating func usbConnected(connectionID: String) -> Alert? {
        let alert = Alert(transition: .connected, connectionID: connectionID)
        guard record.insert(alert.key) else { return nil }
        return alert
    }

    /// The `WakeFilter` saw a new epoch: the board's ring was reset, read it from the start.
    /// Recorded keys stay, so nothing already alerted alerts again.
    package mutating func resetCursor() {
        record.cursor = EventCursor()
    }

    /// Takes in one events answer.
    package mutating func receive(_ answer: EventsAnswer) -> [Output] {
        let cursor = record.cursor
        if isStale(answer, for: cursor) {
            let fresh = EventCursor(since: 0, generation: answer.generation, epoch: answer.epoch)
            // Already at the start of this generation and still told to reset: take the events as
            // they are rather than loop.
            if fresh != cursor {
                record.cursor = fresh
                return [.readAgain]
            }
        }

        let silent = !record.hasReadEvents && firstRead == .recordSilently
        var outputs: [Output] = []
        if answer.truncated && record.hasReadEvents {
            outputs.append(.eventsMissed)
        }
        let epoch = answer.epoch ?? cursor.epoch ?? 0
        let generation = answer.generation ?? cursor.generation
        for event in answer.events {
            guard let transition = AlertTransition(event.transition), isForThisPhone(event) else { continue }
            var alert = Alert(
                transition: transition, requestID: event.requestID, epoch: epoch, eventID: event.id,
                boardTime: event.at)
            alert.generation = generation
            guard !record.covers(alert.key), record.insert(alert.key), !silent else { continue }
            outputs.append(.alert(alert))
        }
        record.cursor = EventCursor(
            since: answer.next ?? answer.events.map(\.id).max() ?? cursor.since,
            generation: answer.generation ?? cursor.generation,
            epoch: answer.epoch ?? cursor.epoch)
        record.hasReadEvents = true
        return outputs
    }

    /// A transition with no `phone_id` (an older board), an empty one (any phone) or this phone's.
    private func isForThisPhone(_ event: BoardEvent) -> Bool {
        guard let target = event.phoneID, !target.isEmpty, let phoneID else { return true }
        return target == phoneID
    }

    /// The answer is not a continuation of `cursor`: the board says so, or its generation or epoch
    /// differs from the one the cursor came from.
    private func isStale(_ answer: EventsAnswer, for cursor: EventCursor) -> Bool {
        if answer.resetRequired { return true }
        if let known = cursor.generation, let generation = answer.generation, known != generation { return true }
        if let known = cursor.epoch, let epoch = answer.epoch, known != epoch { return true }
        return false
    }
}
