/// A complete HTTP response value; the server shell copies it onto the wire.
package struct HTTPResponse: Sendable, Equatable {
    package var status: Int
    /// Header fields in the order they are sent.
    package var headers: [(name: String, value: String)]
    package var body: [UInt8]
    /// The same value answers many requests (a publication's `/current`, until the next publication): the server
    /// may keep what it builds to send it, and send that again for every request it answers with an equal value.
    /// Not part of equality; a hint, never a change in what is sent.
    package var reusable: Bool
    /// The answer depends on nothing but the request and a publication (not on the clock), so a byte-identical
    /// request on the same connection gets the same answer while `validity` holds: the server may send it again
    /// without building the request or asking the handler. nil: the next answer may differ. Not part of equality.
    package var validity: AnswerValidity?

    package init(
        status: Int, headers: [(name: String, value: String)] = [], body: [UInt8] = [], reusable: Bool = false,
        validity: AnswerValidity? = nil
    ) {
        self.status = status
        self.headers = headers
        self.body = body
        self.reusable = reusable
        self.validity = validity
    }

    package func header(_ name: String) -> String? {
        headers.first { $0.name.lowercased() == name.lowercased() }?.value
    }

    package static func == (a: HTTPResponse, b: HTTPResponse) -> Bool {
        a.status == b.status && a.body == b.body
            && a.headers.elementsEqual(b.headers, by: { $0.name == $1.name && $0.value == $1.value })
    }
}
