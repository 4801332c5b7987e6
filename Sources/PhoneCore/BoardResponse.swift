/// What came back: an HTTP answer (any status), or no answer at all.
package enum BoardResponse: Sendable, Equatable {
    /// `etag` is the `ETag` header, if any; `retryAfter` the `Retry-After` header's delay (`retryAfter(_:)`).
    case answered(status: Int, etag: String?, body: [UInt8], retryAfter: Duration? = nil)
    /// No HTTP answer: refused, timed out, reset; `detail` is the transport's words.
    case failed(detail: String)

    /// A `Retry-After` header's delay: whole seconds (`delay-seconds`, all the board sends), at least 1 s.
    /// An HTTP date, a negative, fractional or out-of-range number is no delay at all (nil), never an error:
    /// the caller then waits as it would have anyway.
    package static func retryAfter(_ header: String?) -> Duration? {
        let words = header?.split(whereSeparator: { $0 == " " || $0 == "\t" }) ?? []
        guard words.count == 1, let word = words.first, word.count <= 9,
            word.unicodeScalars.allSatisfy({ $0.isASCIIDigit }), let seconds = Int(word)
        else { return nil }
        return .seconds(max(seconds, 1))
    }
}

extension Unicode.Scalar {
    fileprivate var isASCIIDigit: Bool { (0x30...0x39).contains(value) }
}
