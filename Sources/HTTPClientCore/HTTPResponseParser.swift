import WireFormat

/// An HTTP/1.x response read from a connection's bytes as they arrive: the head, then the body by
/// `Content-Length`, by chunks, or to the end of the connection. Pure, so every framing rule is tested with
/// transcripts; the client's socket only feeds it.
///
/// It is strict where a misread would leave the connection out of step with the server (two lengths, a length
/// beside chunking, an unknown transfer coding, a bad chunk size: the response is refused and the connection is
/// not reused), and bounded everywhere, so a hostile server can neither grow the client's memory nor keep it
/// reading for free: the heads (interim ones included) by `maxHeadBytes` together, the chunks' lines and trailers by
/// `maxHeadBytes` more than the body's limit, the body by `limit`, checked against a declared length before any
/// of it arrives. Only bytes not yet read are kept.
package struct HTTPResponseParser: Sendable {
    package enum Step: Equatable, Sendable {
        case needMore
        /// The whole response. `reusable`: the connection may carry the next request (HTTP/1.1 without
        /// `Connection: close`, or HTTP/1.0 with `keep-alive`, a delimited body, and no bytes beyond it).
        case complete(HTTPClientResponse, reusable: Bool)
    }

    private enum State: Sendable {
        case statusLine
        case headers
        case fixed(remaining: Int)
        case chunkSize
        case chunkData(remaining: Int)
        case chunkEnd
        case trailers
        case untilClose
        case done
    }

    package let limit: Int
    package let maxHeadBytes: Int
    private let expectsBody: Bool
    private var state = State.statusLine
    private var buffer: [UInt8] = []
    private var cursor = 0
    /// Bytes of lines read so far: of the heads (against `maxHeadBytes`), then of the chunks' lines and the
    /// trailers (against `maxHeadBytes + limit`).
    private var lineBytes = 0
    private var lineBudget: Int
    /// Whether the final head is in (the lines since are the chunks' and the trailers').
    private var headDone = false
    /// Where the search for the next line's end goes on from: a line that trickles in is looked through once.
    private var searched = 0
    private var status = 0
    private var minorVersion = 1
    private var headers: [String: String] = [:]
    private var lastHeaderName: String?
    private var body: [UInt8] = []
    /// Whether any byte of a response has arrived: a reused connection that ends before one can be retried.
    package private(set) var hasStarted = false

    /// `expectsBody` is false for a `HEAD` request, whose answer declares a length it does not send.
    package init(limit: Int, expectsBody: Bool = true, maxHeadBytes: Int = 64 * 1024) {
        self.limit = max(0, limit)
        self.expectsBody = expectsBody
        self.maxHeadBytes = maxHeadBytes
        self.lineBudget = maxHeadBytes
    }

    /// Reads the next bytes of the connection.
    package mutating func consume(_ bytes: some Collection<UInt8>) throws(HTTPClientError) -> Step {
        if !bytes.isEmpty { hasStarted = true }
        if cursor > 0 {
            // What was read is let go of; what is left is at most a line not yet ended.
            buffer.removeSubrange(..<cursor)
            searched -= cursor
            cursor = 0
        }
        buffer.append(contentsOf: bytes)
        return try advance()
    }

    /// The connection ended (the peer closed it). A body that runs to the end is complete now; anything else
    /// was cut short.
    package mutating func finish() throws(HTTPClientError) -> HTTPClientResponse {
        switch state {
        case .untilClose, .done:
            state = .done
            return HTTPClientResponse(status: status, headers: headers, body: body)
        case .statusLine where !hasStarted:
            throw .connectionLost("the server closed the connection without answering")
        default:
            throw .connectionLost("the connection closed in the middle of the response")
        }
    }

    private mutating func advance() throws(HTTPClientError) -> Step {
        while true {
            switch state {
            case .statusLine:
                guard let line = try nextLine() else { return .needMore }
                try readStatusLine(line)
                state = .headers
            case .headers:
                guard let line = try nextLine() else { return .needMore }
                if line.isEmpty {
                    try endOfHead()
                } else {
                    try readHeaderLine(line)
                }
            case .fixed(let remaining):
                let taken = take(upTo: remaining)
                if taken < remaining {
                    state = .fixed(remaining: remaining - taken)
                    return .needMore
                }
                return complete()
            case .chunkSize:
                guard let line = try nextLine() else { return .needMore }
                let size = try Self.chunkSize(line)
                guard size <= limit - body.count else { throw .responseTooLarge(limit: limit) }
                state = size == 0 ? .trailers : .chunkData(remaining: size)
            case .chunkData(let remaining):
                let taken = take(upTo: remaining)
                if taken < remaining {
                    state = .chunkData(remaining: remaining - taken)
                    return .needMore
                }
                state = .chunkEnd
            case .chunkEnd:
                guard let line = try nextLine() else { return .needMore }
                guard line.isEmpty else { throw .malformedResponse("a chunk is longer than its size says") }
                state = .chunkSize
            case .trailers:
                guard let line = try nextLine() else { return .needMore }
                if line.isEmpty { return complete() }
            case .untilClose:
                let available = buffer.count - cursor
                guard available <= limit - body.count else { throw .responseTooLarge(limit: limit) }
                _ = take(upTo: available)
                return .needMore
            case .done:
                return .complete(HTTPClientResponse(status: status, headers: headers, body: body), reusable: false)
            }
        }
    }

    /// The next line without its line ending (CRLF, or a bare LF as RFC 9112 §2.2 lets a recipient accept), or nil
    /// when it has not all arrived.
    private mutating func nextLine() throws(HTTPClientError) -> ArraySlice<UInt8>? {
        guard let newline = buffer[max(cursor, searched)...].firstIndex(of: 0x0A) else {
            searched = buffer.count
            guard lineBytes + buffer.count - cursor <= lineBudget else { throw tooManyLineBytes() }
            return nil
        }
        lineBytes += newline + 1 - cursor
        guard lineBytes <= lineBudget else { throw tooManyLineBytes() }
        var end = newline
        if end > cursor, buffer[end - 1] == 0x0D { end -= 1 }
        let line = buffer[cursor..<end]
        cursor = newline + 1
        searched = cursor
        guard !line.contains(0x0D) else { throw .malformedResponse("a line holds a bare carriage return") }
        return line
    }

    private func tooManyLineBytes() -> HTTPClientError {
        guard headDone else { return .malformedResponse("the response's heads exceed \(maxHeadBytes) bytes") }
        return .malformedResponse("the chunks' lines and trailers exceed \(maxHeadBytes) bytes beyond the body")
    }

    private mutating func readStatusLine(_ line: ArraySlice<UInt8>) throws(HTTPClientError) {
        // HTTP/1.x SP 3DIGIT [SP reason]
        let prefix = Array("HTTP/1.".utf8)
        guard line.count >= 12, line.starts(with: prefix),
            let minor = line.dropFirst(7).first, minor == UInt8(ascii: "0") || minor == UInt8(ascii: "1"),
            line[line.startIndex + 8] == 0x20,
            line[(line.startIndex + 9)..<(line.startIndex + 12)].allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }),
            line.count == 12 || line[line.startIndex + 12] == 0x20
        else {
            throw .malformedResponse("\"\(Self.shown(line))\" is not an HTTP/1.0 or HTTP/1.1 status line")
        }
        minorVersion = Int(minor - 0x30)
        status = line[(line.startIndex + 9)..<(line.startIndex + 12)].reduce(0) { $0 * 10 + Int($1 - 0x30) }
        guard status >= 100 else { throw .malformedResponse("status \(status) is not an HTTP status") }
        headers = [:]
        lastHeaderName = nil
    }

    private mutating func readHeaderLine(_ line: ArraySlice<UInt8>) throws(HTTPClientError) {
        if let first = line.first, first == 0x20 || first == 0x09 {
            // Obsolete line folding (RFC 9112 §5.2): the recipient replaces it with a space.
            guard let name = lastHeaderName, let value = headers[name] else {
                throw .malformedResponse("a folded header line follows no header")
            }
            try Self.checkValue(line, of: name)
            headers[name] = value + " " + HTTPSyntax.withoutOptionalWhitespace(Self.text(line))
            return
        }
        guard let colon = line.firstIndex(of: UInt8(ascii: ":")), colon > line.startIndex,
            line[..<colon].allSatisfy(HTTPSyntax.isTokenByte)
        else { throw .malformedResponse("\"\(Self.shown(line))\" is not a header line") }
        let name = Self.text(line[..<colon]).lowercased()
        try Self.checkValue(line[(colon + 1)...], of: name)
        let value = HTTPSyntax.withoutOptionalWhitespace(Self.text(line[(colon + 1)...]))
        if let existing = headers[name] {
            headers[name] = existing + ", " + value
        } else {
            headers[name] = value
        }
        lastHeaderName = name
    }

    /// A field value holds no control character but HTAB (RFC 9110 §5.5: a NUL must be refused or replaced).
    private static func checkValue(_ value: ArraySlice<UInt8>, of name: String) throws(HTTPClientError) {
        guard !value.contains(where: { ($0 < 0x20 && $0 != 0x09) || $0 == 0x7F }) else {
            throw .malformedResponse("header \(name) holds a control character")
        }
    }

    /// The blank line: an interim (1xx) answer is dropped with its headers; a final one decides how its body is
    /// framed (RFC 9112 §6.3).
    private mutating func endOfHead() throws(HTTPClientError) {
        if (100..<200).contains(status) {
            guard status != 101 else { throw .malformedResponse("the server switched protocols") }
            state = .statusLine
            return
        }
        // The final head is in: from here the lines are the chunks' and the trailers', with a budget of their own.
        headDone = true
        lineBytes = 0
        let (budget, overflow) = maxHeadBytes.addingReportingOverflow(limit)
        lineBudget = overflow ? Int.max : budget
        if !expectsBody || status == 204 || status == 304 {
            state = .fixed(remaining: 0)
            return
        }
        if let coding = headers["transfer-encoding"] {
            // RFC 9112 §6.1 and §6.3: only HTTP/1.1 may chunk, and a length beside chunking is an attack or a bug.
            guard minorVersion == 1 else {
                throw .malformedResponse("an HTTP/1.0 answer names a transfer coding")
            }
            guard headers["content-length"] == nil else {
                throw .malformedResponse("the answer has both Transfer-Encoding and Content-Length")
            }
            let codings = HTTPSyntax.listMembers(coding)
            guard codings == ["chunked"] else {
                throw .malformedResponse("transfer coding \"\(coding)\" is not supported (only chunked)")
            }
            state = .chunkSize
            return
        }
        if let declared = headers["content-length"] {
            let values = Set(
                declared.split(separator: ",", omittingEmptySubsequences: false).map(
                    HTTPSyntax.withoutOptionalWhitespace))
            guard values.count == 1, let text = values.first, !text.isEmpty, text.utf8.count <= 18,
                text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }), let length = Int(text)
            else { throw .malformedResponse("Content-Length \"\(declared)\" is not one length") }
            guard length <= limit else { throw .responseTooLarge(limit: limit) }
            state = .fixed(remaining: length)
            return
        }
        state = .untilClose
    }

    private static func chunkSize(_ line: ArraySlice<UInt8>) throws(HTTPClientError) -> Int {
        let digits = line.prefix { $0 != UInt8(ascii: ";") && $0 != 0x20 && $0 != 0x09 }
        // After the size: optional blanks, then the end of the line or `;` and an extension (which is ignored).
        let rest = line.dropFirst(digits.count).drop { $0 == 0x20 || $0 == 0x09 }
        guard !digits.isEmpty, digits.count <= 15, rest.isEmpty || rest.first == UInt8(ascii: ";"),
            digits.allSatisfy({ $0 != UInt8(ascii: "+") && $0 != UInt8(ascii: "-") }),
            let size = Int(text(digits), radix: 16)
        else { throw .malformedResponse("\"\(shown(line))\" is not a chunk size") }
        return size
    }

    /// Moves up to `count` buffered bytes into the body; how many it moved.
    private mutating func take(upTo count: Int) -> Int {
        let taken = min(count, buffer.count - cursor)
        body.append(contentsOf: buffer[cursor..<(cursor + taken)])
        cursor += taken
        return taken
    }

    private mutating func complete() -> Step {
        state = .done
        let connection = headers["connection"].map(HTTPSyntax.listMembers) ?? []
        let keepAlive = minorVersion == 1 ? !connection.contains("close") : connection.contains("keep-alive")
        let response = HTTPClientResponse(status: status, headers: headers, body: body)
        return .complete(response, reusable: keepAlive && cursor == buffer.count)
    }

    private static func text(_ bytes: ArraySlice<UInt8>) -> String {
        String(decoding: bytes, as: UTF8.self)
    }

    /// At most 60 bytes of a line, for an error message, with anything unprintable shown as `?`.
    private static func shown(_ line: ArraySlice<UInt8>) -> String {
        String(decoding: line.prefix(60).map { $0 < 0x20 || $0 >= 0x7F ? UInt8(ascii: "?") : $0 }, as: UTF8.self)
            + (line.count > 60 ? "…" : "")
    }
}
