/// What an agent waits for on one task (docs/protocol.md §6.6): `GET /v1/tasks/{request_id}/wait?for=…`,
/// `aidenctl task wait --for`, the MCP server's handover. Raw values are the query's and the JSON's names.
package enum WaitTarget: String, Codable, CaseIterable, Sendable {
    /// The person asked to stop the task (its `answer` is `stop`).
    case stop
    /// The person answered it `done` or `refuse`.
    case answer
    /// The task ended (`completed`, `failed`, `canceled`).
    case end
}

/// How a wait on a task ended: the `outcome` member of the wait's answer.
package enum WaitOutcome: String, Codable, CaseIterable, Sendable {
    /// What was awaited is on the task (a stop or an answer recorded, or the end).
    case came
    /// The task ended first: the stop or the answer awaited cannot come any more.
    case ended
    /// The wait's timeout passed first; the task is as it was.
    case timeout
}
