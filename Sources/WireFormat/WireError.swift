/// The `error` member of every refusal the board answers (docs/protocol.md §3.2):
/// `{"status":"error","error":{"code":"…","message":"…","field":"…"}}`. The board writes it (`JSONError`, by
/// hand, on paths that must not fail); the phone and `aidenctl` read it through `ErrorAnswer`, leniently: a
/// member that is missing or not a string reads as absent, and the request was refused all the same.
package struct WireError: Codable, Sendable, Equatable {
    /// A stable name for programs: `invalid`, `not_stoppable`, `storage_failed`, …
    package var code: String?
    /// For people: what was wrong and, where it helps, what to do.
    package var message: String?
    /// The request member that was wrong, when one was.
    package var field: String?

    package init(code: String? = nil, message: String? = nil, field: String? = nil) {
        self.code = code
        self.message = message
        self.field = field
    }

    enum CodingKeys: String, CodingKey {
        case code, message, field
    }

    package init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            code: container.lenient(String.self, forKey: .code),
            message: container.lenient(String.self, forKey: .message),
            field: container.lenient(String.self, forKey: .field))
    }
}

/// An error answer's outer object as a reader takes it: `error` is nil when the body names none it can read.
package struct ErrorAnswer: Decodable, Sendable {
    package var error: WireError?

    enum CodingKeys: String, CodingKey {
        case error
    }

    package init(from decoder: any Decoder) throws {
        error = try decoder.container(keyedBy: CodingKeys.self).lenient(WireError.self, forKey: .error)
    }
}
