/// Why the store refused a request. `code` is the JSON error code; `description` says what to fix.
package enum TaskStoreError: Error, Sendable, Hashable, CustomStringConvertible {
    /// No task has this `request_id` (never started, or pruned after its retention).
    case notFound(id: String)
    /// The request contradicts the stored state: the id exists, the task has ended, `expected_revision`
    /// is stale, or an `Idempotency-Key` was reused for a different body.
    case conflict(String)
    /// The input breaks a validation rule.
    case invalid(TaskValidationError)
    /// Every slot holds an active task, so none can be evicted for a new one.
    case capacityExceeded(capacity: Int)
    /// An answer of the person's does not fit the task's state.
    case answerRefused(AnswerRefusal)

    /// `not_found`, `conflict`, `invalid`, `capacity_exceeded`, or the answer refusal's own code.
    package var code: String {
        switch self {
        case .notFound: "not_found"
        case .conflict: "conflict"
        case .invalid: "invalid"
        case .capacityExceeded: "capacity_exceeded"
        case .answerRefused(let refusal): refusal.code
        }
    }

    /// The JSON key at fault, for `invalid` errors about one field.
    package var field: String? {
        if case .invalid(let error) = self {
            return error.field
        }
        return nil
    }

    package var description: String {
        switch self {
        case .notFound(let id):
            "no task with request_id \(TaskValidationError.quoted(id))"
        case .conflict(let message):
            message
        case .invalid(let error):
            error.description
        case .capacityExceeded(let capacity):
            "the store already holds \(capacity) active tasks, its capacity; end a task before starting another"
        case .answerRefused(let refusal):
            refusal.description
        }
    }
}
