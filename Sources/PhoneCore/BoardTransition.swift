/// A transition name from the board's events ring (CONTRACT §5); unknown names are kept as raw
/// strings so a newer board never breaks the events read.
package struct BoardTransition: RawRepresentable, Hashable, Sendable, Codable {
    package var rawValue: String

    package init(rawValue: String) { self.rawValue = rawValue }

    package static let started = BoardTransition(rawValue: "started")
    package static let handoff = BoardTransition(rawValue: "handoff")
    package static let foregroundRecovery = BoardTransition(rawValue: "foreground_recovery")
    package static let completed = BoardTransition(rawValue: "completed")
    package static let failed = BoardTransition(rawValue: "failed")
    package static let canceled = BoardTransition(rawValue: "canceled")
}
