import Logging
import WireFormat

/// Reads HTTP/1.1 requests out of one connection's bytes as they arrive (RFC 9112): the request line and header
/// fields first (`Step.head`, so the server can refuse a request before its body is read, or tell the client to
/// send it), then the body, whole (`Step.body`), framed by `Content-Length` or chunked. Pipelined requests are read
/// one after another from the same bytes. Pure: the server's shell feeds it what `recv` gave and acts on its steps.
///
/// Everything here comes from the network, so it is read strictly where leniency would let two readers disagree
/// about where a request ends (a bare CR, a folded line, two different lengths, a length beside chunking: 400), and
/// every size is bounded before it is held (`Limits`: 431 for the head, 413 for the body).
package struct HTTPRequestParser: Sendable {
    package struct Limits: Sendable, Equatable {
        /// The request line and header fields together (and a chunked body's trailer fields), in bytes.
        package var headerBytes: Int
        /// The body, declared or read, in bytes.
        package var bodyBytes: Int

        package init(headerBytes: Int, bodyBytes: Int) {
            self.headerBytes = headerBytes
            self.bodyBytes = bodyBytes
        }
    }

    /// How the request's body is delimited.
    package enum Framing: Sendable, Equatable {
        case none
        /// `Content-Length`; a length too large to hold is `Int.max` (refused as over any limit).
        case length(Int)
        case chunked
    }

    /// A request's line and header fields, before its body.
    package struct Head: Sendable {
        package var method: String
        /// The path without its query, percent-decoded.
        package var path: String
        /// The query's parameters in order, `+` read as a space and percent-decoded; a name without `=` has "".
        package var query: [(name: String, value: String)]
        /// The header fields by lower-cased name; a repeated name keeps its first value (`Connection`'s are joined,
        /// and a repeated `Transfer-Encoding` is refused).
        package var headers: [String: String]
        package var framing: Framing
        /// `Connection: close`, or HTTP/1.0 without `Connection: keep-alive`: the connection ends after the answer.
        package var closeAfter: Bool
        /// `Expect: 100-continue` on a request with a body: the client waits for `100 Continue` before sending it.
        package var expectsContinue: Bool
        /// An HTTP/1.0 request that asked to keep the connection (`Connection: keep-alive`): its answer must say it
        /// does, or the client takes the answer as the connection's last.
        package var keepAliveAsked = false
        /// A `HEAD` request: its answer carries the header fields of a `GET`'s, without the body.
        package var isHead: Bool { method == "HEAD" }
    }

    /// Why the bytes are not a request; the connection cannot be read on after any of these.
    package enum Failure: Error, Equatable, Sendable, CustomStringConvertible {
        case malformed(String)
        case headersTooLarge(limit: Int)
        case bodyTooLarge(limit: Int)
        case unsupportedTransferCoding(String)
        case unsupportedVersion(String)

        /// The status that answers it.
        package var status: Int {
            switch self {
            case .malformed: return 400
            case .headersTooLarge: return 431
            case .bodyTooLarge: return 413
            case .unsupportedTransferCoding: return 501
            case .unsupportedVersion: return 505
            }
        }

        package var description: String {
            switch self {
            case let .malformed(what): return "malformed request: \(what)"
            case let .headersTooLarge(limit): return "request line and header fields over \(limit) bytes"
            case let .bodyTooLarge(limit): return "request body over \(limit) bytes"
            case let .unsupportedTransferCoding(coding): return "transfer coding \"\(coding)\" is not supported"
            case let .unsupportedVersion(version): return "HTTP version \"\(version)\" is not supported"
            }
        }
    }

    package enum Step: Sendable {
        /// Nothing more can be read until more bytes come.
        case needMore
        /// The request's line and header fields are in; the next step reads its body.
        case head(Head)
        /// The body of the request whose head came last is in (empty when it has none); the next step reads the
        /// next request.
        case body([UInt8])
        /// The bytes are not a request: answer `Failure.status` and close.
        case failed(Failure)
    }

    private enum State: Sendable {
        /// Looking for the head's blank line: `lineStart` is where the line being scanned begins and `scanned` how
        /// far it has been looked through, both past the cursor, so a head that trickles in is read once.
        case head(lineStart: Int, scanned: Int)
        case fixed(remaining: Int)
        case chunkSize
        case chunkData(remaining: Int)
        case chunkEnd
        /// After the last chunk: trailer fields until a blank line, `bytes` of them read so far.
        case trailer(bytes: Int)
        case failed(Failure)
    }

    package let limits: Limits
    private var state = State.head(lineStart: 0, scanned: 0)
    private var body: [UInt8] = []

    package init(limits: Limits) { self.limits = limits }

    /// Nothing of a request has been read yet: the next bytes begin one.
    package var isAtRequestStart: Bool {
        if case .head(lineStart: 0, scanned: 0) = state { return true }
        return false
    }

    /// The longest chunk-size line (with extensions) read before the request is refused.
    static let chunkLineLimit = 1_024

    /// Reads on from `cursor` in `input`, moving `cursor` past what it consumed. After `.failed`, every call fails
    /// the same way.
    package mutating func next(in input: [UInt8], at cursor: inout Int) -> Step {
        while true {
            switch state {
            case let .failed(failure):
                return .failed(failure)
            case let .head(lineStart, scanned):
                return readHead(input, &cursor, lineStart: lineStart, scanned: scanned)
            case let .fixed(remaining):
                let left = takeBody(input, &cursor, remaining)
                guard left == 0 else {
                    state = .fixed(remaining: left)
                    return .needMore
                }
                return finishBody()
            case .chunkSize:
                guard let line = takeLine(input, &cursor, limit: Self.chunkLineLimit) else {
                    // A line of the limit's length may still have its CR in and its LF to come.
                    if input.count - cursor > Self.chunkLineLimit + 1 {
                        return .failed(fail(.malformed("chunk-size line over \(Self.chunkLineLimit) bytes")))
                    }
                    return .needMore
                }
                guard let size = Self.chunkSize(line) else {
                    return .failed(fail(.malformed("chunk size is not hexadecimal")))
                }
                if size == 0 {
                    state = .trailer(bytes: 0)
                } else if size > limits.bodyBytes - body.count {
                    return .failed(fail(.bodyTooLarge(limit: limits.bodyBytes)))
                } else {
                    state = .chunkData(remaining: size)
                }
            case let .chunkData(remaining):
                let left = takeBody(input, &cursor, remaining)
                guard left == 0 else {
                    state = .chunkData(remaining: left)
                    return .needMore
                }
                state = .chunkEnd
            case .chunkEnd:
                guard let line = takeLine(input, &cursor, limit: 2) else {
                    if input.count - cursor >= 2 { return .failed(fail(.malformed("chunk data overruns its size"))) }
                    return .needMore
                }
                guard line.isEmpty else { return .failed(fail(.malformed("chunk data overruns its size"))) }
                state = .chunkSize
            case let .trailer(bytes):
                let room = limits.headerBytes - bytes
                guard let line = takeLine(input, &cursor, limit: room) else {
                    if input.count - cursor > room + 1 {
                        return .failed(fail(.headersTooLarge(limit: limits.headerBytes)))
                    }
                    return .needMore
                }
                // Trailer fields are read past and never used: nothing here asks for one.
                guard line.isEmpty else {
                    state = .trailer(bytes: bytes + line.count + 2)
                    continue
                }
                return finishBody()
            }
        }
    }

    private mutating func fail(_ failure: Failure) -> Failure {
        state = .failed(failure)
        body = []
        return failure
    }

    /// Moves up to `remaining` of the body's bytes from `cursor` into it; returns how many are still to come.
    private mutating func takeBody(_ input: [UInt8], _ cursor: inout Int, _ remaining: Int) -> Int {
        let taken = min(remaining, input.count - cursor)
        body.append(contentsOf: input[cursor..<cursor + taken])
        cursor += taken
        return remaining - taken
    }

    private mutating func finishBody() -> Step {
        let done = body
        body = []
        state = .head(lineStart: 0, scanned: 0)
        return .body(done)
    }

    // MARK: The head

    private mutating func readHead(_ input: [UInt8], _ cursor: inout Int, lineStart: Int, scanned: Int) -> Step {
        // Empty lines before a request line are skipped (RFC 9112 §2.2), so a client's stray CRLF after a body
        // does not make the next request malformed.
        if lineStart == 0 {
            while cursor < input.count, input[cursor] == 0x0D || input[cursor] == 0x0A {
                if input[cursor] == 0x0D, cursor + 1 < input.count, input[cursor + 1] != 0x0A {
                    return .failed(fail(.malformed("bare CR before the request line")))
                }
                if input[cursor] == 0x0D, cursor + 1 == input.count { return .needMore }
                cursor += 1
            }
        }
        let cursorNow = cursor
        let (blankLine, lastLine) = input.withUnsafeBufferPointer { buffer -> (Int?, Int) in
            var start = cursorNow + lineStart
            var from = max(cursorNow + scanned, start)
            while let newline = buffer[from...].firstIndex(of: 0x0A) {
                let contentEnd = newline > start && buffer[newline - 1] == 0x0D ? newline - 1 : newline
                if contentEnd == start, start > cursorNow { return (newline, start) }
                start = newline + 1
                from = start
            }
            return (nil, start)
        }
        if let blankLine {
            // The blank line: the head is [cursor, lastLine).
            guard blankLine + 1 - cursor <= limits.headerBytes else {
                return .failed(fail(.headersTooLarge(limit: limits.headerBytes)))
            }
            let parsed = parseHead(input[cursor..<lastLine])
            cursor = blankLine + 1
            switch parsed {
            case let .success(head):
                switch head.framing {
                case .none: state = .fixed(remaining: 0)
                case let .length(length):
                    // Refused on the step after the head, so a refusal from the head alone comes first.
                    state =
                        length > limits.bodyBytes
                        ? .failed(.bodyTooLarge(limit: limits.bodyBytes)) : .fixed(remaining: length)
                case .chunked: state = .chunkSize
                }
                return .head(head)
            case let .failure(failure):
                return .failed(fail(failure))
            }
        }
        guard input.count - cursor <= limits.headerBytes else {
            return .failed(fail(.headersTooLarge(limit: limits.headerBytes)))
        }
        state = .head(lineStart: lastLine - cursor, scanned: input.count - cursor)
        return .needMore
    }

    /// The head's lines (each ending in LF, a CR before it dropped) as a request. One pass over the bytes, which the
    /// phone's every read goes through: no array of lines, each field's name and value made a `String` once.
    private func parseHead(_ bytes: ArraySlice<UInt8>) -> Result<Head, Failure> {
        bytes.withUnsafeBufferPointer { buffer in Self.parseHead(buffer) }
    }

    private static func parseHead(_ bytes: UnsafeBufferPointer<UInt8>) -> Result<Head, Failure> {
        // The request line.
        guard let firstEnd = bytes.firstIndex(of: 0x0A) else { return .failure(.malformed("no request line")) }
        let lineEnd = firstEnd > 0 && bytes[firstEnd - 1] == 0x0D ? firstEnd - 1 : firstEnd
        guard let space = bytes[..<lineEnd].firstIndex(of: 0x20),
            let secondSpace = bytes[(space + 1)..<lineEnd].firstIndex(of: 0x20)
        else { return .failure(.malformed("request line is not method, target and version")) }
        let methodBytes = bytes[..<space]
        let target = bytes[(space + 1)..<secondSpace]
        let version = bytes[(secondSpace + 1)..<lineEnd]
        guard !methodBytes.isEmpty, methodBytes.allSatisfy(HTTPSyntax.isTokenByte) else {
            return .failure(.malformed("method is not a token"))
        }
        guard !target.isEmpty, !target.contains(where: { $0 <= 0x20 || $0 == 0x7F }) else {
            return .failure(.malformed("request target is empty or holds a control character"))
        }
        guard version.count == 8, version.starts(with: httpSlash), version[version.startIndex + 6] == 0x2E,
            isDigit(version[version.startIndex + 5]), isDigit(version[version.startIndex + 7])
        else {
            let text = String(decoding: version, as: UTF8.self)
            return .failure(.malformed("version \"\(ControlCharacter.shown(text))\" is not HTTP/x.y"))
        }
        guard version[version.startIndex + 5] == 0x31 else {
            return .failure(.unsupportedVersion(String(decoding: version, as: UTF8.self)))
        }
        let isHTTP10 = version[version.startIndex + 7] == 0x30

        // The header fields, a line at a time.
        var headers = [String: String](minimumCapacity: 8)
        var contentLength: Int?
        var lineStart = firstEnd + 1
        while lineStart < bytes.count {
            let newline = bytes[lineStart...].firstIndex(of: 0x0A) ?? bytes.count
            let end = newline > lineStart && bytes[newline - 1] == 0x0D ? newline - 1 : newline
            let line = bytes[lineStart..<end]
            lineStart = newline + 1
            guard let first = line.first else { continue }
            guard first != 0x20, first != 0x09 else { return .failure(.malformed("folded header line")) }
            guard let colon = line.firstIndex(of: 0x3A) else { return .failure(.malformed("header line without ':'")) }
            let name = line[line.startIndex..<colon]
            guard !name.isEmpty, name.allSatisfy(HTTPSyntax.isTokenByte) else {
                return .failure(.malformed("header name is not a token"))
            }
            var valueStart = colon + 1
            var valueEnd = line.endIndex
            while valueStart < valueEnd, line[valueStart] == 0x20 || line[valueStart] == 0x09 { valueStart += 1 }
            while valueEnd > valueStart, line[valueEnd - 1] == 0x20 || line[valueEnd - 1] == 0x09 { valueEnd -= 1 }
            let value = line[valueStart..<valueEnd]
            if value.contains(where: { $0 == 0 || $0 == 0x0D }) {
                return .failure(.malformed(value.contains(0) ? "NUL in a header value" : "bare CR in the head"))
            }
            let key = lowercased(name)
            if key == "content-length" {
                guard let length = decimal(value) else { return .failure(.malformed("Content-Length is not a number")) }
                if let earlier = contentLength, earlier != length {
                    return .failure(.malformed("two different Content-Length fields"))
                }
                contentLength = length
            }
            let text = String(decoding: value, as: UTF8.self)
            if let earlier = headers[key] {
                // A repeated field is one list (RFC 9110 §5.3). Where that list decides framing or the connection's
                // end, a reader that took only the first would disagree with one that joined them.
                if key == "transfer-encoding" { return .failure(.malformed("repeated Transfer-Encoding")) }
                if key == "connection" { headers[key] = earlier + ", " + text }
            } else {
                headers[key] = text
            }
        }

        var framing = Framing.none
        if let coding = headers["transfer-encoding"] {
            guard contentLength == nil else {
                return .failure(.malformed("Content-Length beside Transfer-Encoding"))
            }
            guard !isHTTP10, coding.lowercased() == "chunked" else {
                return .failure(.unsupportedTransferCoding(ControlCharacter.shown(coding)))
            }
            framing = .chunked
        } else if let contentLength, contentLength > 0 {
            framing = .length(contentLength)
        }
        let connection = headers["connection"].map(HTTPSyntax.listMembers) ?? []
        let closeAfter = connection.contains("close") || (isHTTP10 && !connection.contains("keep-alive"))
        let expectsContinue =
            !isHTTP10 && framing != .none && headers["expect"].map { $0.lowercased() == "100-continue" } == true

        guard let (path, query) = splitTarget(target) else {
            return .failure(.malformed("request target is not a path"))
        }
        // Nothing a client means has a NUL in it, and a reader of C strings would stop there.
        guard !path.utf8.contains(0), !query.contains(where: { $0.name.utf8.contains(0) || $0.value.utf8.contains(0) })
        else { return .failure(.malformed("request target holds an encoded NUL")) }
        return .success(
            Head(
                method: String(decoding: methodBytes, as: UTF8.self), path: path, query: query, headers: headers,
                framing: framing, closeAfter: closeAfter, expectsContinue: expectsContinue,
                keepAliveAsked: isHTTP10 && !closeAfter))
    }

    /// Takes one line (up to LF, a CR before it dropped) of at most `limit` bytes from `cursor`; nil when no whole
    /// line is in within the limit.
    private func takeLine(_ input: [UInt8], _ cursor: inout Int, limit: Int) -> ArraySlice<UInt8>? {
        let end = min(input.count, cursor + limit + 2)
        guard let newline = input[cursor..<end].firstIndex(of: 0x0A) else { return nil }
        let contentEnd = newline > cursor && input[newline - 1] == 0x0D ? newline - 1 : newline
        let line = input[cursor..<contentEnd]
        guard line.count <= limit else { return nil }
        cursor = newline + 1
        return line
    }

    // MARK: Pieces

    private static let httpSlash: [UInt8] = Array("HTTP/".utf8)

    /// The request target as a path and a query: origin form (`/path?query`), absolute form
    /// (`http://host/path?query`, the authority dropped) or `*`; nil for anything else.
    static func splitTarget(_ target: Slice<UnsafeBufferPointer<UInt8>>) -> (String, [(name: String, value: String)])? {
        var target = target
        if let hash = target.firstIndex(of: 0x23) { target = target[..<hash] }
        if target.first != 0x2F {
            if target.elementsEqual([0x2A]) { return ("*", []) }
            guard let scheme = target.firstRange(of: Array("://".utf8)) else { return nil }
            let afterAuthority = target[scheme.upperBound...]
            guard let slash = afterAuthority.firstIndex(of: 0x2F) else {
                return afterAuthority.contains(0x3F) ? nil : ("/", [])
            }
            target = target[slash...]
        }
        let question = target.firstIndex(of: 0x3F)
        let path = target[..<(question ?? target.endIndex)]
        var query: [(name: String, value: String)] = []
        if let question {
            for piece in target[(question + 1)...].split(separator: 0x26) {
                let equals = piece.firstIndex(of: 0x3D)
                let name = piece[..<(equals ?? piece.endIndex)]
                let value = equals.map { piece[($0 + 1)...] } ?? piece[piece.endIndex...]
                query.append((percentDecoded(name, plusIsSpace: true), percentDecoded(value, plusIsSpace: true)))
            }
        }
        return (percentDecoded(path, plusIsSpace: false), query)
    }

    /// `%XX` decoded (a `%` not followed by two hex digits stays as it is), as UTF-8 (invalid sequences replaced).
    static func percentDecoded(_ bytes: Slice<UnsafeBufferPointer<UInt8>>, plusIsSpace: Bool) -> String {
        guard bytes.contains(where: { $0 == 0x25 || (plusIsSpace && $0 == 0x2B) }) else {
            return String(decoding: bytes, as: UTF8.self)
        }
        var decoded: [UInt8] = []
        decoded.reserveCapacity(bytes.count)
        var index = bytes.startIndex
        while index < bytes.endIndex {
            let byte = bytes[index]
            if byte == 0x25, index + 2 < bytes.endIndex, let high = hexValue(bytes[index + 1]),
                let low = hexValue(bytes[index + 2])
            {
                decoded.append(high << 4 | low)
                index += 3
                continue
            }
            decoded.append(plusIsSpace && byte == 0x2B ? 0x20 : byte)
            index += 1
        }
        return String(decoding: decoded, as: UTF8.self)
    }

    /// A chunk-size line's size (hexadecimal, before any `;` extension); nil when it is not one or overflows.
    static func chunkSize(_ line: ArraySlice<UInt8>) -> Int? {
        let digits = line[..<(line.firstIndex(of: 0x3B) ?? line.endIndex)]
        var trimmed = digits
        while let last = trimmed.last, last == 0x20 || last == 0x09 { trimmed = trimmed.dropLast() }
        guard !trimmed.isEmpty, trimmed.count <= 15 else { return nil }
        var size = 0
        for byte in trimmed {
            guard let digit = hexValue(byte) else { return nil }
            size = size << 4 | Int(digit)
        }
        return size
    }

    /// A non-negative decimal; `Int.max` when it has too many digits to hold; nil when it is not digits only.
    static func decimal(_ bytes: some Collection<UInt8>) -> Int? {
        guard !bytes.isEmpty, bytes.allSatisfy(isDigit) else { return nil }
        guard bytes.count <= 18 else { return Int.max }
        return bytes.reduce(0) { $0 * 10 + Int($1 - 0x30) }
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case 0x30...0x39: return byte - 0x30
        case 0x41...0x46: return byte - 0x41 + 10
        case 0x61...0x66: return byte - 0x61 + 10
        default: return nil
        }
    }

    private static func isDigit(_ byte: UInt8) -> Bool { byte >= 0x30 && byte <= 0x39 }

    /// A token's bytes lower-cased (ASCII; tokens hold nothing else).
    private static func lowercased(_ name: some Collection<UInt8>) -> String {
        String(unsafeUninitializedCapacity: name.count) { target in
            for (offset, byte) in name.enumerated() {
                target[offset] = byte >= 0x41 && byte <= 0x5A ? byte | 0x20 : byte
            }
            return name.count
        }
    }
}
