import WireFormat

/// KDE's job progress (docs/desktop.md, "KDE's job progress"): one job view per active task, asked of the
/// session's `org.kde.JobViewServer` with `requestView` and fed through `org.kde.JobViewV2` calls, as a pure
/// state machine. The session's cards go in after each step, the server's answers and signals as they come;
/// out come the views to ask for, the calls to make on each, and the person's answers.
///
/// - A view is asked for when an active task appears (and again for every active task when a server takes
///   the name, or when the server dropped a task's view), `killable` only while the task can be stopped
///   (`can_stop`); when that changes the view is replaced, the old one ended quietly.
/// - It shows the task's current step as its info message, the title in description field 0, what a
///   handoff or `needs_app` waits for in field 1, and the progress as its percent while the task shows
///   progress. Only what changed is sent.
/// - It is terminated when the task ends: no error for `completed`, the task's error for `failed`, the
///   job's "killed" code for `canceled` (the server then removes it without a "finished" notice), the same
///   quiet end for a task that left the cards or a view that was replaced.
/// - `cancelRequested` on a killable view is the person's `stop` for its task, with the revision the view
///   last showed, once per view, never after the view ended; a view whose Cancel was pressed is not asked
///   for again when the server drops it (the server removes canceled jobs by itself).
package struct JobViewPlan: Sendable, Equatable {
    /// `requestView`'s `capabilities` bits.
    package struct Capabilities: OptionSet, Sendable, Hashable {
        package let rawValue: Int32

        package init(rawValue: Int32) {
            self.rawValue = rawValue
        }

        /// The server shows a Cancel button (`cancelRequested`).
        package static let killable = Capabilities(rawValue: 0x1)
        /// Pause and Resume (`suspendRequested`, `resumeRequested`): a task cannot be paused, never asked.
        package static let suspendable = Capabilities(rawValue: 0x2)
    }

    /// What one view shows.
    package struct View: Sendable, Equatable {
        package var infoMessage: String
        /// Description field 0 (`Task`).
        package var title: String
        /// Description field 1 (`Waiting for`), cleared when nil.
        package var waitingFor: String?
        /// 0–100 while the task shows progress.
        package var percent: UInt32?
    }

    /// How a view ends.
    package enum Ending: Sendable, Equatable {
        case completed
        case failed(String)
        case canceled
        /// The view is replaced, or its task left the cards without an end seen: removed without a notice.
        case quiet
    }

    /// One `org.kde.JobViewV2` call, in the order it is sent.
    package enum Call: Sendable, Equatable {
        case setInfoMessage(String)
        case setDescriptionField(UInt32, name: String, value: String)
        case clearDescriptionField(UInt32)
        case setPercent(UInt32)
        case setError(UInt32)
        case terminate(String)
    }

    package enum Effect: Sendable, Equatable {
        /// `requestView` for the task's view; its answer goes to `opened(ticket:path:)` or `refused(ticket:)`.
        case request(ticket: UInt64, requestID: String, capabilities: Capabilities)
        /// Calls on the view at `path`, in order.
        case send(path: String, [Call])
        /// The person's answer from a view's Cancel.
        case answer(Answer, requestID: String, revision: UInt64?)
    }

    /// KJob's error codes: `KilledJobError` (the person canceled; the server removes the view quietly) and
    /// `UserDefinedError` (a failure with its own text).
    package static let killedError: UInt32 = 1
    package static let failedError: UInt32 = 100

    /// What an active task asks of its view now.
    private struct Want: Sendable, Equatable {
        var requestID: String
        var view: View
        var capabilities: Capabilities
        var revision: UInt64?
        /// Stop is among what the task takes now (`Answer.available(on:)`).
        var stoppable: Bool
    }

    /// A task's view at the server.
    private struct Job: Sendable, Equatable {
        /// The `requestView` in flight or answered (nil: refused, waiting for another server).
        var ticket: UInt64?
        var path: String?
        var capabilities: Capabilities
        /// What the view was last sent, and the revision it came from.
        var sent: View?
        var shownRevision: UInt64?
        var canceled = false
        /// Its Cancel was pressed and the server then dropped it: no view until the task ends.
        var gone = false
    }

    /// A view whose task ended (or that was replaced) while it was still asked for: ended when it comes.
    private struct Retired: Sendable, Equatable {
        /// What it shows last (nil: only the end).
        var view: View?
        var ending: Ending
    }

    private var wanted: [Want] = []
    private var jobs: [String: Job] = [:]
    private var retiring: [UInt64: Retired] = [:]
    private var nextTicket: UInt64 = 1
    private var serverPresent = false

    package init() {}

    /// The cards after a step (`PhoneSession.taskCards`).
    package mutating func show(_ cards: [Card]) -> [Effect] {
        var effects: [Effect] = []
        var seen: Set<String> = []
        var next: [Want] = []
        for card in cards {
            guard let task = card.snapshot, let requestID = task.requestID, seen.insert(requestID).inserted
            else { continue }
            let view = Self.view(card)
            if let ending = Self.ending(card) {
                effects += end(requestID, view: view, ending)
                continue
            }
            let want = Want(
                requestID: requestID, view: view, capabilities: task.canStop == true ? .killable : [],
                revision: task.revision, stoppable: Answer.available(on: card).contains(.stop))
            next.append(want)
            effects += follow(want)
        }
        for requestID in jobs.keys.sorted() where !seen.contains(requestID) {
            effects += end(requestID, view: nil, .quiet)
        }
        wanted = next
        return effects
    }

    /// `requestView` answered `path` for `ticket`.
    package mutating func opened(ticket: UInt64, path: String) -> [Effect] {
        if let retired = retiring.removeValue(forKey: ticket) {
            let last = retired.view.map { Self.calls(from: nil, to: $0) } ?? []
            return [.send(path: path, last + Self.calls(retired.ending))]
        }
        guard let requestID = jobs.first(where: { $0.value.ticket == ticket })?.key,
            let want = wanted.first(where: { $0.requestID == requestID })
        else { return [] }
        jobs[requestID]?.path = path
        return send(want)
    }

    /// `requestView` failed for `ticket`: the task has no view until another server takes the name.
    package mutating func refused(ticket: UInt64) -> [Effect] {
        retiring[ticket] = nil
        if let requestID = jobs.first(where: { $0.value.ticket == ticket })?.key { jobs[requestID]?.ticket = nil }
        return []
    }

    /// The server's name got an owner (`present`) or lost it: every view of the old one is gone; with a new
    /// one, each active task asks for its view again.
    package mutating func serverChanged(present: Bool) -> [Effect] {
        jobs = [:]
        retiring = [:]
        serverPresent = present
        return wanted.flatMap { follow($0) }
    }

    /// A call on the view at `path` said it is not there any more: the server dropped it.
    package mutating func dropped(path: String) -> [Effect] {
        guard let requestID = jobs.first(where: { $0.value.path == path })?.key, let job = jobs[requestID] else {
            return []
        }
        if job.canceled {
            jobs[requestID] = Job(ticket: nil, capabilities: job.capabilities, canceled: true, gone: true)
            return []
        }
        jobs[requestID] = nil
        return wanted.first { $0.requestID == requestID }.map { follow($0) } ?? []
    }

    /// `cancelRequested` from the view at `path` (the shell believes only the server's own signals).
    package mutating func cancelRequested(path: String) -> [Effect] {
        guard let requestID = jobs.first(where: { $0.value.path == path })?.key, var job = jobs[requestID],
            job.capabilities.contains(.killable), !job.canceled
        else { return [] }
        job.canceled = true
        jobs[requestID] = job
        guard wanted.first(where: { $0.requestID == requestID })?.stoppable == true else { return [] }
        return [.answer(.stop, requestID: requestID, revision: job.shownRevision)]
    }

    // MARK: Steps

    /// An active task: ask for its view, replace it when its capabilities changed, or send what changed.
    private mutating func follow(_ want: Want) -> [Effect] {
        guard serverPresent else { return [] }
        guard let job = jobs[want.requestID] else { return request(want) }
        if job.gone || job.ticket == nil { return [] }
        if job.capabilities != want.capabilities, !job.canceled {
            return end(want.requestID, view: want.view, .quiet) + request(want)
        }
        return send(want)
    }

    private mutating func request(_ want: Want) -> [Effect] {
        let ticket = nextTicket
        nextTicket &+= 1
        jobs[want.requestID] = Job(ticket: ticket, capabilities: want.capabilities)
        return [.request(ticket: ticket, requestID: want.requestID, capabilities: want.capabilities)]
    }

    /// What changed since the view was last sent.
    private mutating func send(_ want: Want) -> [Effect] {
        guard var job = jobs[want.requestID], let path = job.path else { return [] }
        let calls = Self.calls(from: job.sent, to: want.view)
        job.sent = want.view
        job.shownRevision = want.revision
        jobs[want.requestID] = job
        return calls.isEmpty ? [] : [.send(path: path, calls)]
    }

    /// The task's view ends (`view`: what it shows last, nil to leave it as sent).
    private mutating func end(_ requestID: String, view: View?, _ ending: Ending) -> [Effect] {
        guard let job = jobs.removeValue(forKey: requestID) else { return [] }
        if let path = job.path {
            let last = view.map { Self.calls(from: job.sent, to: $0) } ?? []
            return [.send(path: path, last + Self.calls(ending))]
        }
        if let ticket = job.ticket { retiring[ticket] = Retired(view: view, ending: ending) }
        return []
    }

    // MARK: Words

    static func view(_ card: Card) -> View {
        let task = card.snapshot ?? SnapshotView()
        let step = BoardText.line(task.currentStep, limit: Alert.stepLimit)
        let info: String =
            switch card.state {
            case .failed: "Failed"
            case .completed: "Completed"
            case .canceled: "Canceled"
            default: step ?? BarStatus.stateWords(card.state).capitalizedFirst
            }
        let waitingFor: String? =
            switch card.state {
            case .handoff:
                "You, on the phone"
                    + (BoardText.line(task.currentTarget, limit: Alert.titleLimit).map { " (\($0))" } ?? "")
            case .needsApp:
                "The app on the phone"
                    + (BoardText.line(task.currentApp, limit: Alert.titleLimit).map { " (\($0))" } ?? "")
            default: nil
            }
        let percent =
            card.state.isActive && task.showsProgress == true
            ? task.progress.flatMap { $0.isFinite ? UInt32(min(100, max(0, ($0 * 100).rounded()))) : nil } : nil
        return View(infoMessage: info, title: BarStatus.title(task), waitingFor: waitingFor, percent: percent)
    }

    static func ending(_ card: Card) -> Ending? {
        switch card.state {
        case .completed: .completed
        case .failed: .failed(BoardText.line(card.snapshot?.lastError, limit: Alert.errorLimit) ?? "Failed")
        case .canceled: .canceled
        case .running, .needsApp, .handoff, .standby, .disconnected: nil
        }
    }

    /// The calls that take a view from `old` (nil: nothing sent yet) to `new`.
    static func calls(from old: View?, to new: View) -> [Call] {
        var calls: [Call] = []
        if old?.title != new.title { calls.append(.setDescriptionField(0, name: "Task", value: new.title)) }
        if old == nil || old?.waitingFor != new.waitingFor {
            if let waitingFor = new.waitingFor {
                calls.append(.setDescriptionField(1, name: "Waiting for", value: waitingFor))
            } else if old != nil {
                calls.append(.clearDescriptionField(1))
            }
        }
        if old?.infoMessage != new.infoMessage { calls.append(.setInfoMessage(new.infoMessage)) }
        if let percent = new.percent, old?.percent != percent { calls.append(.setPercent(percent)) }
        return calls
    }

    /// The last calls a view gets: its error (if any), then `terminate`.
    static func calls(_ ending: Ending) -> [Call] {
        switch ending {
        case .completed: [.terminate("")]
        case let .failed(text): [.setError(failedError), .terminate(text)]
        case .canceled: [.setError(killedError), .terminate("Canceled")]
        case .quiet: [.setError(killedError), .terminate("")]
        }
    }
}

extension JobViewPlan.Call {
    /// Which part of the view a call sets: a later call for the same part makes an earlier one unneeded.
    package var part: String {
        switch self {
        case .setInfoMessage: "info"
        case let .setDescriptionField(number, _, _), let .clearDescriptionField(number): "field \(number)"
        case .setPercent: "percent"
        case .setError: "error"
        case .terminate: "terminate"
        }
    }

    /// `calls` then `later`, keeping only the last call for each part (what a view waiting behind a slow
    /// server is sent once it answers again), in the order the last ones came.
    package static func merged(_ calls: [Self], _ later: [Self]) -> [Self] {
        let parts = Set(later.map(\.part))
        return calls.filter { !parts.contains($0.part) } + later
    }
}

extension String {
    fileprivate var capitalizedFirst: String { prefix(1).uppercased() + dropFirst() }
}
