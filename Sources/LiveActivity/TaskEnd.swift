import WireFormat

/// The body of an end (`POST /v1/tasks/{request_id}/end`): a terminal `status`, an optional
/// `last_error` (kept as it was when absent), an optional `dismiss_after_seconds` (how long the ended card
/// stays: nil is the board's retention, 0 gone at once) and an optional `expected_revision`.
package struct TaskEnd: Sendable, Hashable {
    package var status: TaskStatus
    package var lastError: String?
    package var dismissAfterSeconds: Int?
    package var expectedRevision: UInt64?

    package init(
        status: TaskStatus, lastError: String? = nil, dismissAfterSeconds: Int? = nil,
        expectedRevision: UInt64? = nil
    ) {
        self.status = status
        self.lastError = lastError
        self.dismissAfterSeconds = dismissAfterSeconds
        self.expectedRevision = expectedRevision
    }

    /// Decodes and validates a request body: unknown keys are ignored, known ones must be valid.
    package static func decode(from json: some Collection<UInt8>) throws(TaskValidationError) -> TaskEnd {
        let body = try JSONFields.parse(json)
        guard let status = try body.status(allowed: TaskStatus.terminal) else {
            throw TaskField.status.error("is required (one of \(TaskField.list(TaskStatus.terminal)))")
        }
        return TaskEnd(
            status: status, lastError: try body.string(.lastError),
            dismissAfterSeconds: try body.seconds(.dismissAfterSeconds, in: TaskLimits.dismissAfterRange),
            expectedRevision: try body.expectedRevision())
    }

    /// The same rules as `decode`, for values built in code; the store calls it on every end.
    package func validate() throws(TaskValidationError) {
        try TaskField.status.checkStatus(status, allowed: TaskStatus.terminal)
        if let lastError {
            try TaskField.lastError.check(lastError)
        }
        if let dismissAfterSeconds {
            try TaskField.dismissAfterSeconds.checkSeconds(dismissAfterSeconds, in: TaskLimits.dismissAfterRange)
        }
    }
}

extension TaskEnd: Encodable {
    package func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: JSONKey.self)
        try container.encode(status, forKey: TaskField.status.key)
        try container.encodeIfPresent(lastError, forKey: TaskField.lastError.key)
        try container.encodeIfPresent(dismissAfterSeconds, forKey: TaskField.dismissAfterSeconds.key)
        try container.encodeIfPresent(expectedRevision, forKey: TaskField.expectedRevision.key)
    }
}
