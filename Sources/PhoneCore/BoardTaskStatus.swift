/// A snapshot's `status` as the board sent it. A struct over the raw string rather than an enum,
/// so a status this client does not know (from a newer board) is kept, shown, and never fails decoding.
package struct BoardTaskStatus: RawRepresentable, Hashable, Sendable, Codable {
    package var rawValue: String

    package init(rawValue: String) { self.rawValue = rawValue }

    package static let running = BoardTaskStatus(rawValue: "running")
    package static let needsApp = BoardTaskStatus(rawValue: "needs_app")
    package static let completed = BoardTaskStatus(rawValue: "completed")
    package static let failed = BoardTaskStatus(rawValue: "failed")
    package static let canceled = BoardTaskStatus(rawValue: "canceled")
}
