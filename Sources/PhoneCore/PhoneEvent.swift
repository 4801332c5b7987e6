/// One line of `aiden-phone --json` output (docs/protocol.md §8.2), before encoding.
package enum PhoneEvent: Sendable, Equatable {
    /// The card as shown.
    case card(Card)
    case alert(Alert)
    /// The link or Wake transport changed.
    case connection(LinkState)
    case wake(WakeNotice)
    /// Something went wrong; `kind` is a stable machine name (`unreachable`, `forbidden`, `http_status`,
    /// `malformed`, `events_missed`, …), nil when there is none.
    case error(kind: String?, message: String)
    /// How the board took one of the person's answers.
    case answered(AnswerOutcome)

    /// The `error` event for a fetch problem.
    package static func problem(_ problem: BoardProblem) -> PhoneEvent {
        .error(kind: problem.kind, message: problem.description)
    }

    /// The `error` event for `AlertPolicy.Output.eventsMissed`.
    package static let eventsMissed = PhoneEvent.error(
        kind: "events_missed", message: "the board's event ring overflowed: some transitions were missed")
}

/// A received Wake as reported in a `wake` event.
package struct WakeNotice: Sendable, Equatable {
    package var version: UInt8
    /// The reason's name as WakeProtocol spells it (`live_activity`, `unrecognized_7`).
    package var reason: String
    package var epoch: UInt16
    package var sequence: UInt64
    package var verdict: WakeFilter.Verdict

    package init(version: UInt8, reason: String, epoch: UInt16, sequence: UInt64, verdict: WakeFilter.Verdict) {
        self.version = version
        self.reason = reason
        self.epoch = epoch
        self.sequence = sequence
        self.verdict = verdict
    }
}
