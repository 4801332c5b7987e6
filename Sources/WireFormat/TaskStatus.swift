/// Where a task is in its life (docs/protocol.md §4.2). Raw values are the JSON strings. The board accepts
/// only these; readers hold `OpenEnum<TaskStatus>`.
package enum TaskStatus: String, Codable, Sendable, Hashable, CaseIterable {
    case running
    case needsApp = "needs_app"
    case completed
    case failed
    case canceled

    /// Active tasks can still change and win the "current task" selection outright.
    package var isActive: Bool { self == .running || self == .needsApp }

    /// Terminal tasks are final: they carry `ended_at` and refuse updates.
    package var isTerminal: Bool { !isActive }

    /// The statuses an agent may set on start and update; terminal ones only come through `end`.
    package static let active: [TaskStatus] = [.running, .needsApp]

    /// The statuses `end` accepts.
    package static let terminal: [TaskStatus] = [.completed, .failed, .canceled]
}
