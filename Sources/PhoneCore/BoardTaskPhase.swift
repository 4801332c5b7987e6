/// A snapshot's `phase` as the board sent it; unknown phases are kept as raw strings (see `BoardTaskStatus`).
package struct BoardTaskPhase: RawRepresentable, Hashable, Sendable, Codable {
    package var rawValue: String

    package init(rawValue: String) { self.rawValue = rawValue }

    package static let planning = BoardTaskPhase(rawValue: "planning")
    package static let observing = BoardTaskPhase(rawValue: "observing")
    package static let acting = BoardTaskPhase(rawValue: "acting")
    package static let phoneBridge = BoardTaskPhase(rawValue: "phone_bridge")
    package static let waitingApp = BoardTaskPhase(rawValue: "waiting_app")
    package static let waitingUser = BoardTaskPhase(rawValue: "waiting_user")
    package static let verifying = BoardTaskPhase(rawValue: "verifying")
    package static let answering = BoardTaskPhase(rawValue: "answering")
}
