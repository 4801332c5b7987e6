/// The statuses an update may set; a task leaves these only through `task end`.
package enum TaskUpdateStatus: String, CaseIterable, Sendable, Equatable {
    case needsApp = "needs_app"
    case running
}
