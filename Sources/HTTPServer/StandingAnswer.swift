import BoardAPI

#if canImport(Glibc)
import Glibc
#endif

/// A connection's last answer that holds for a repeat of its request (`HTTPResponse.validity`): the request's bytes
/// and the answer's. The phone reads `/current` again and again with the same bytes, on the same connection, and
/// between two publications the answer is the same: a request byte-identical to `request`, read from a parser at
/// the start of a request while `validity` holds, is answered with `wire` without being parsed, built or routed.
/// The admission's decision is the same too: it depends on the request and the connection's peer and local address
/// alone, and both are the same. The loop's own, like its connection (a class, so that checking and sending it copies
/// nothing).
final class StandingAnswer {
    /// The whole request, head and blank line (it has no body).
    let request: [UInt8]
    /// What was sent for it, brought to the current second when sent again.
    var wire: WireResponse
    /// It asked for `HEAD`: the answer is the head of `wire`.
    let headOnly: Bool
    let validity: AnswerValidity

    init(request: [UInt8], wire: WireResponse, headOnly: Bool, validity: AnswerValidity) {
        self.request = request
        self.wire = wire
        self.headOnly = headOnly
        self.validity = validity
    }

    /// Whether `bytes`, all that was read, are this request once more, and its answer still holds.
    func answers(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard bytes.count == request.count, validity.holds, let base = bytes.baseAddress else { return false }
        return request.withUnsafeBytes { kept in
            guard let start = kept.baseAddress else { return false }
            return memcmp(start, base, bytes.count) == 0
        }
    }
}
