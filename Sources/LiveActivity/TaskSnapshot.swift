import FoundationEssentials
import WireFormat

/// What the phone shows for one agent task (docs/protocol.md §4): the unit the store keeps and the HTTP layer
/// serves. A value: changing a copy never changes the store.
package struct TaskSnapshot: Sendable, Hashable {
    package var requestID: String
    /// Empty: any phone may show the task.
    package var phoneID: String
    package var status: TaskStatus
    package var phase: TaskPhase
    package var taskTitle: String
    package var currentStep: String
    package var currentAction: String
    package var currentTarget: String
    package var currentApp: String
    package var lastToolName: String
    package var lastError: String
    /// What the agent's tool is doing now (the card's tool line); empty: none.
    package var toolStatus: String
    /// When `toolStatus` became what it says; set by the store only, nil exactly when `toolStatus` is empty.
    package var toolStartedAt: Date?
    /// A BCP 47 language tag for the task's texts; empty: not said.
    package var locale: String
    /// 0...1.
    package var progress: Double
    package var showsProgress: Bool
    package var canStop: Bool
    package var requiresApp: Bool
    /// No news (an update or a heartbeat) for this long: shown as stale (`staleSince`).
    package var staleAfterSeconds: Int
    /// No news for this long: the board ends the task `failed`, "the agent stopped reporting".
    package var abandonAfterSeconds: Int
    /// When the board marked the task stale; nil while it has news. Set and cleared by the store only.
    package var staleSince: Date?
    package var startedAt: Date
    package var updatedAt: Date
    /// Set exactly when `status` is terminal.
    package var endedAt: Date?
    /// How long after `endedAt` the card stays, as the agent asked at the end (nil: the board's retention;
    /// 0: gone at once). Never longer than the retention.
    package var dismissAfterSeconds: Int?
    /// When the person dismissed the ended task's card on the phone; set by the store only, on an ended
    /// task. A dismissed task is no longer shown.
    package var dismissedAt: Date?
    /// The store revision at this task's last change: orders tasks by recency and lets writers detect
    /// that someone else changed the task (`expected_revision`).
    package var revision: UInt64
    /// The person's latest answer from the phone (`stop`, `done` or `refuse`; never `dismiss`), nil for none.
    /// Set by the store only (`TaskStore.answer`): `done` and `refuse` are cleared when the task next enters a
    /// waiting state (a new request for input), `stop` stays; every answer is cleared when the task ends.
    package var answer: TaskAnswer?

    package init(
        requestID: String, phoneID: String = "", status: TaskStatus = .running, phase: TaskPhase = .planning,
        taskTitle: String, currentStep: String = "", currentAction: String = "", currentTarget: String = "",
        currentApp: String = "", lastToolName: String = "", lastError: String = "", toolStatus: String = "",
        toolStartedAt: Date? = nil, locale: String = "", progress: Double = 0,
        showsProgress: Bool = false, canStop: Bool = false, requiresApp: Bool = false,
        staleAfterSeconds: Int = TaskLimits.defaultStaleAfterSeconds,
        abandonAfterSeconds: Int = TaskLimits.defaultAbandonAfterSeconds, staleSince: Date? = nil,
        startedAt: Date, updatedAt: Date, endedAt: Date? = nil, dismissAfterSeconds: Int? = nil,
        dismissedAt: Date? = nil, revision: UInt64, answer: TaskAnswer? = nil
    ) {
        self.requestID = requestID
        self.phoneID = phoneID
        self.status = status
        self.phase = phase
        self.taskTitle = taskTitle
        self.currentStep = currentStep
        self.currentAction = currentAction
        self.currentTarget = currentTarget
        self.currentApp = currentApp
        self.lastToolName = lastToolName
        self.lastError = lastError
        self.toolStatus = toolStatus
        self.toolStartedAt = toolStartedAt
        self.locale = locale
        self.progress = progress
        self.showsProgress = showsProgress
        self.canStop = canStop
        self.requiresApp = requiresApp
        self.staleAfterSeconds = staleAfterSeconds
        self.abandonAfterSeconds = abandonAfterSeconds
        self.staleSince = staleSince
        self.startedAt = startedAt
        self.updatedAt = updatedAt
        self.endedAt = endedAt
        self.dismissAfterSeconds = dismissAfterSeconds
        self.dismissedAt = dismissedAt
        self.revision = revision
        self.answer = answer
    }

    /// A person must act on the phone (the `handoff` transition fires when a task enters this state).
    package var isAwaitingUser: Bool {
        Handoff.isAwaitingUser(phase: phase, currentAction: currentAction)
    }

    /// The task waits for the person: active, and handed over (`isAwaitingUser`) or `needs_app`. What `done`
    /// and `refuse` answer, and what selection puts first.
    package var isWaitingForPerson: Bool {
        status == .needsApp || (status.isActive && isAwaitingUser)
    }

    /// Whether phone `phoneID` may show this task: the task names that phone or no phone.
    package func isVisible(toPhone phoneID: String) -> Bool {
        self.phoneID.isEmpty || self.phoneID == phoneID
    }
}
