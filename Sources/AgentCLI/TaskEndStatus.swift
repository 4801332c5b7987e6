/// The terminal statuses `task end` accepts.
package enum TaskEndStatus: String, CaseIterable, Sendable, Equatable {
    case completed
    case failed
    case canceled
}
