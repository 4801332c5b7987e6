import BoardAPI
import WireFormat

/// The board's HTTP request parser (`HTTPRequestParser`) on raw bytes from the network, as the server's loop feeds
/// it: whatever the connection sends, in whatever pieces `recv` gives it.
///
/// Beyond not crashing: the steps are the same however the bytes are split (all at once, a byte at a time, and at
/// places the input itself picks), so no request depends on how TCP segmented it; the parser only moves forward
/// and never past what it was given; every body is within the limit and belongs to a head; the routers never see
/// a NUL in the path or the query, nor a header name that is not a lower-case token; and once it fails, it stays
/// failed with the same status.
package enum HTTPRequestHarness: FuzzHarness {
    package static let name = "http-request"

    /// Small limits, so that the fuzzer reaches them.
    static let limits = HTTPRequestParser.Limits(headerBytes: 512, bodyBytes: 256)

    package static func run(_ input: [UInt8]) throws(InvariantViolation) -> FuzzVerdict {
        let whole = try steps(input, splitAt: [])
        let trickled = try steps(input, splitAt: Array(0..<input.count))
        try require(whole == trickled, "a byte at a time reads otherwise:\n\(whole)\n\(trickled)")
        // Split points the input picks: each byte's low bits say how far the next cut is.
        var cuts: [Int] = []
        var position = 0
        for byte in input.prefix(64) {
            position += Int(byte & 0x1F) + 1
            if position < input.count { cuts.append(position) }
        }
        let split = try steps(input, splitAt: cuts)
        try require(whole == split, "split at \(cuts) reads otherwise:\n\(whole)\n\(split)")
        let requests = whole.filter { $0.hasPrefix("body ") }.count
        return requests > 0 && !whole.contains(where: { $0.hasPrefix("failed ") }) ? .accepted : .rejected
    }

    /// The steps for `input` arriving in pieces that end at `splitAt`, written as lines, each checked as it comes.
    static func steps(_ input: [UInt8], splitAt cuts: [Int]) throws(InvariantViolation) -> [String] {
        var parser = HTTPRequestParser(limits: limits)
        var buffer: [UInt8] = []
        var cursor = 0
        var steps: [String] = []
        var headPending = false
        var failure: HTTPRequestParser.Failure?
        for (start, end) in zip([0] + cuts, cuts + [input.count]) where start < end {
            buffer.append(contentsOf: input[start..<end])
            reading: while true {
                let before = cursor
                let step = parser.next(in: buffer, at: &cursor)
                try require(cursor >= before && cursor <= buffer.count, "the cursor moved to \(cursor) from \(before)")
                switch step {
                case .needMore:
                    break reading
                case let .head(head):
                    try require(!headPending, "a head came before the last one's body")
                    try check(head)
                    headPending = true
                    steps.append(
                        "head \(head.method) \(head.path) \(head.query.map { "\($0.name)=\($0.value)" }) "
                            + "\(head.headers.sorted { $0.key < $1.key }) \(head.framing) close=\(head.closeAfter) "
                            + "continue=\(head.expectsContinue)")
                case let .body(body):
                    try require(headPending, "a body without a head")
                    try require(body.count <= limits.bodyBytes, "a body of \(body.count) bytes")
                    headPending = false
                    steps.append("body \(body)")
                case let .failed(reason):
                    try require(failure == nil || failure == reason, "failed as \(reason) after \(failure!)")
                    failure = reason
                    steps.append("failed \(reason.status)")
                    break reading
                }
            }
            if failure != nil {
                guard case let .failed(again) = parser.next(in: buffer, at: &cursor), again == failure else {
                    throw InvariantViolation("a failed parser read on")
                }
                break
            }
            // As the server does: what the parser took is let go of.
            buffer.removeFirst(cursor)
            cursor = 0
        }
        return steps
    }

    private static func check(_ head: HTTPRequestParser.Head) throws(InvariantViolation) {
        try require(!head.method.isEmpty, "an empty method")
        try require(!head.path.utf8.contains(0), "a NUL in the path \(head.path.debugDescription)")
        for (name, value) in head.query {
            try require(!name.utf8.contains(0) && !value.utf8.contains(0), "a NUL in the query")
        }
        for (name, value) in head.headers {
            try require(
                !name.isEmpty && name.utf8.allSatisfy { HTTPSyntax.isTokenByte($0) && !(65...90).contains($0) },
                "header name \(name.debugDescription) is not a lower-case token")
            try require(
                !value.utf8.contains(where: { $0 == 0 || $0 == 13 || $0 == 10 }),
                "header value \(value.debugDescription) holds NUL, CR or LF")
        }
        if case let .length(length) = head.framing { try require(length > 0, "a zero length framed as a body") }
        try require(!head.expectsContinue || head.framing != .none, "continue without a body")
    }
}
