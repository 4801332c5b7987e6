/// A complete response: the final status (after any 1xx), its headers and the whole body.
package struct HTTPClientResponse: Sendable, Equatable {
    package var status: Int
    /// Names lower-cased; a repeated header's values are joined with ", " (RFC 9110 §5.3).
    package var headers: [String: String]
    package var body: [UInt8]

    package init(status: Int, headers: [String: String] = [:], body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }
}
