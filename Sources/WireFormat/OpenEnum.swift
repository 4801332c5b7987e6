/// A value of one of the closed vocabularies (`TaskStatus`, `TaskPhase`, `Transition`, `AppState`)
/// as a tolerant reader holds it: a case this build knows, or the raw string a newer board sent.
///
/// The board writes the closed enums and refuses unknown values; the phone and aidenctl read
/// `OpenEnum`s, so a board with a new phase still gets its card shown, with the phase as sent.
package enum OpenEnum<Known>: Sendable, Hashable, RawRepresentable
where Known: RawRepresentable<String> & Sendable & Hashable {
    case known(Known)
    case unknown(String)

    /// Never fails: a name this build does not know is kept as it was sent.
    package init(rawValue: String) {
        if let known = Known(rawValue: rawValue) {
            self = .known(known)
        } else {
            self = .unknown(rawValue)
        }
    }

    package init(_ known: Known) { self = .known(known) }

    package var rawValue: String {
        switch self {
        case let .known(value): value.rawValue
        case let .unknown(text): text
        }
    }

    /// The known case, nil for a name from a newer board.
    package var known: Known? {
        if case let .known(value) = self { value } else { nil }
    }
}

extension OpenEnum: Codable {
    package init(from decoder: any Decoder) throws {
        self.init(rawValue: try decoder.singleValueContainer().decode(String.self))
    }

    package func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }
}

extension OpenEnum: ExpressibleByStringLiteral {
    package init(stringLiteral value: String) { self.init(rawValue: value) }
}
