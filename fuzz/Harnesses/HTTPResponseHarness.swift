import HTTPClientCore
import WireFormat

/// The HTTP client's response parser (`HTTPResponseParser`) on raw bytes from a server, as the client's socket
/// feeds it: whatever the board (or anything listening where the board should be) sends, in whatever pieces
/// `recv` gives it, then the end of the connection.
///
/// Beyond not crashing: the response is the same however the bytes are split (all at once, a byte at a time, and
/// at places the input picks), and so is the failure; a connection is kept only when the whole read says so (a
/// split read cannot see bytes beyond the answer that came with it, so it may keep one the whole read does not,
/// never the reverse); every body is within the limit and matches a declared length; header names are lower-case
/// tokens and values hold no control character but HTAB; the status is a three-digit one, never interim.
package enum HTTPResponseHarness: FuzzHarness {
    package static let name = "http-response"

    /// Small limits, so that the fuzzer reaches them.
    static let limit = 256
    static let maxHeadBytes = 512

    package static func run(_ input: [UInt8]) throws(InvariantViolation) -> FuzzVerdict {
        // The first byte says whether the request was a HEAD (its answer has no body).
        guard let first = input.first else { return .rejected }
        let expectsBody = first & 1 == 0
        let bytes = Array(input.dropFirst())
        let whole = try read(bytes, splitAt: [], expectsBody: expectsBody)
        let trickled = try read(bytes, splitAt: Array(0..<bytes.count), expectsBody: expectsBody)
        try same(whole, trickled, "a byte at a time")
        var cuts: [Int] = []
        var position = 0
        for byte in bytes.prefix(64) {
            position += Int(byte & 0x1F) + 1
            if position < bytes.count { cuts.append(position) }
        }
        let split = try read(bytes, splitAt: cuts, expectsBody: expectsBody)
        try same(whole, split, "split at \(cuts)")
        if case .answered = whole.outcome { return .accepted }
        return .rejected
    }

    struct Reading: Equatable {
        enum Outcome: Equatable {
            case answered(HTTPClientResponse)
            case failed(HTTPClientError)
        }

        var outcome: Outcome
        /// Whether the connection could carry the next request (false when the answer ran to its end).
        var reusable: Bool
    }

    private static func same(_ whole: Reading, _ other: Reading, _ how: String) throws(InvariantViolation) {
        try require(whole.outcome == other.outcome, "\(how) reads otherwise:\n\(whole)\n\(other)")
        try require(!whole.reusable || other.reusable, "\(how) does not keep a connection the whole read keeps")
    }

    /// Feeds `input` in pieces that end at `splitAt`, then the end of the connection if the answer is not whole.
    static func read(_ input: [UInt8], splitAt cuts: [Int], expectsBody: Bool) throws(InvariantViolation) -> Reading {
        var parser = HTTPResponseParser(limit: limit, expectsBody: expectsBody, maxHeadBytes: maxHeadBytes)
        for (start, end) in zip([0] + cuts, cuts + [input.count]) where start < end {
            switch Result(catching: { () throws(HTTPClientError) in try parser.consume(input[start..<end]) }) {
            case .success(.needMore):
                continue
            case .success(.complete(let response, let reusable)):
                try check(response, expectsBody: expectsBody)
                return Reading(outcome: .answered(response), reusable: reusable)
            case .failure(let error):
                return Reading(outcome: .failed(error), reusable: false)
            }
        }
        switch Result(catching: { () throws(HTTPClientError) in try parser.finish() }) {
        case .success(let response):
            try check(response, expectsBody: expectsBody)
            return Reading(outcome: .answered(response), reusable: false)
        case .failure(let error):
            return Reading(outcome: .failed(error), reusable: false)
        }
    }

    private static func check(_ response: HTTPClientResponse, expectsBody: Bool) throws(InvariantViolation) {
        try require((200...999).contains(response.status), "an interim or invalid status \(response.status)")
        try require(response.body.count <= limit, "a body of \(response.body.count) bytes")
        if !expectsBody || response.status == 204 || response.status == 304 {
            try require(response.body.isEmpty, "a body on an answer that has none")
        }
        for (name, value) in response.headers {
            try require(
                !name.isEmpty
                    && name.utf8.allSatisfy { byte in
                        !(65...90).contains(byte) && byte > 0x20 && byte < 0x7F
                            && !"\"(),/:;<=>?@[\\]{}".utf8.contains(byte)
                    },
                "header name \(name.debugDescription) is not a lower-case token")
            try require(
                !value.utf8.contains(where: { ($0 < 0x20 && $0 != 0x09) || $0 == 0x7F }),
                "header value \(value.debugDescription) holds a control character")
        }
        if expectsBody, response.status != 204, response.status != 304, response.headers["transfer-encoding"] == nil,
            let declared = response.headers["content-length"]
        {
            let lengths = Set(declared.split(separator: ",").map { Int(HTTPSyntax.withoutOptionalWhitespace($0)) })
            try require(lengths == [response.body.count], "a body of \(response.body.count) bytes for \(declared)")
        }
    }
}
