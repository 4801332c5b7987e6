import WireFormat

/// What one aidenctl invocation asks for, validated but not yet run.
package enum Command: Sendable, Equatable {
    /// Print the usage of this command (exit 0).
    case help(HelpTopic)
    case taskStart(Start)
    case taskUpdate(Update)
    case taskEnd(End)
    case taskList
    case taskShow(requestID: String)
    case status

    package struct Start: Sendable, Equatable {
        package var title: String
        package var requestID: String?
        package var phoneID: String?
        package var step: String?
        package var phase: TaskPhase?
        package var progress: Double?

        package init(
            title: String, requestID: String? = nil, phoneID: String? = nil, step: String? = nil,
            phase: TaskPhase? = nil, progress: Double? = nil
        ) {
            self.title = title
            self.requestID = requestID
            self.phoneID = phoneID
            self.step = step
            self.phase = phase
            self.progress = progress
        }
    }

    /// Only the fields given change; an empty string clears a text field.
    package struct Update: Sendable, Equatable {
        package var requestID: String
        package var step: String?
        package var phase: TaskPhase?
        package var action: String?
        package var target: String?
        package var app: String?
        package var tool: String?
        package var progress: Double?
        package var status: TaskStatus?
        package var expectedRevision: UInt64?

        package init(
            requestID: String, step: String? = nil, phase: TaskPhase? = nil, action: String? = nil,
            target: String? = nil, app: String? = nil, tool: String? = nil, progress: Double? = nil,
            status: TaskStatus? = nil, expectedRevision: UInt64? = nil
        ) {
            self.requestID = requestID
            self.step = step
            self.phase = phase
            self.action = action
            self.target = target
            self.app = app
            self.tool = tool
            self.progress = progress
            self.status = status
            self.expectedRevision = expectedRevision
        }
    }

    package struct End: Sendable, Equatable {
        package var requestID: String
        package var status: TaskStatus
        package var error: String?

        package init(requestID: String, status: TaskStatus, error: String? = nil) {
            self.requestID = requestID
            self.status = status
            self.error = error
        }
    }
}
