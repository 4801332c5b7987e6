/// Every member of a task snapshot's JSON (docs/protocol.md §4.2), named once. The board's strict
/// `TaskSnapshot`, the agent's write bodies and the tolerant `SnapshotView` that the phone and
/// aidenctl read all take their keys from here, and each of them switches over `allCases`
/// exhaustively, so a new field does not compile until every reader and writer has it.
package enum SnapshotKey: String, CodingKey, CaseIterable, Sendable {
    case requestID = "request_id"
    case phoneID = "phone_id"
    case status
    case phase
    case taskTitle = "task_title"
    case currentStep = "current_step"
    case currentAction = "current_action"
    case currentTarget = "current_target"
    case currentApp = "current_app"
    case lastToolName = "last_tool_name"
    case lastError = "last_error"
    /// What the agent's tool is doing now, in words (the card's tool line); empty: no tool running.
    case toolStatus = "tool_status"
    /// When `tool_status` last changed to what it says (the card's elapsed timer); the board stamps it, null
    /// while `tool_status` is empty.
    case toolStartedAt = "tool_started_at"
    /// The language the agent writes the task's texts in, a BCP 47 tag (`en-US`); empty: not said.
    case locale
    case progress
    case showsProgress = "shows_progress"
    case canStop = "can_stop"
    case requiresApp = "requires_app"
    /// Seconds without news (an update or a heartbeat) after which the task is shown as stale.
    case staleAfterSeconds = "stale_after_seconds"
    /// Seconds without news after which the board ends the task `failed` ("the agent stopped reporting").
    case abandonAfterSeconds = "abandon_after_seconds"
    /// When the task went stale (null: it has news); news clears it.
    case staleSince = "stale_since"
    case startedAt = "started_at"
    case updatedAt = "updated_at"
    case endedAt = "ended_at"
    /// Seconds after the end that the card stays (null: the board's retention; 0: gone at once).
    case dismissAfterSeconds = "dismiss_after_seconds"
    /// When the person dismissed the ended task on the phone (null: not dismissed).
    case dismissedAt = "dismissed_at"
    case revision
    /// The person's latest answer from the phone (`AnswerKey` members), null for none.
    case answer
}

/// Members of the agent's write bodies that are not snapshot fields.
package enum WriteKey: String, CodingKey, CaseIterable, Sendable {
    /// The task's `revision` the writer last saw; the write is refused if the task moved on.
    case expectedRevision = "expected_revision"
}

/// Members of one entry of the board's transition ring (docs/protocol.md §5.2):
/// `{"id":43,"request_id":"…","transition":"handoff","at":"…","phone_id":"…"}`.
package enum EventKey: String, CodingKey, CaseIterable, Sendable {
    case id
    case requestID = "request_id"
    case transition
    case at
    /// The task's `phone_id` ("" for any phone), so a phone alerts only for its own tasks.
    case phoneID = "phone_id"
    /// On an `answered` event: the person's answer, `done` or `refuse`.
    case answer
    /// The task's `revision` the transition gave it: an answer shown at an earlier revision is stale if the
    /// task started again or began another wait since (docs/protocol.md §3.8).
    case revision
}
