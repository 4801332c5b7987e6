/// What came back: an HTTP answer (any status), or no answer at all.
package enum BoardResponse: Sendable, Equatable {
    /// `etag` is the `ETag` header, if any.
    case answered(status: Int, etag: String?, body: [UInt8])
    /// No HTTP answer: refused, timed out, reset; `detail` is the transport's words.
    case failed(detail: String)
}
