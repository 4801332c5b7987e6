import BoardAPI

/// The wire bytes of the answers a handler gives again and again (`HTTPResponse.reusable`: a publication's
/// `/current`, its 304), each built once and sent for every request answered with an equal value: building one per
/// request was most of the server's own cost on the phone's hot path. An equal value shares its arrays with the
/// kept one until the next publication, so the comparison is a few pointer checks. Only a keep-alive answer is kept
/// (the last answer of a connection is built for it). The loop's own.
struct PreparedResponses {
    /// Distinct reusable answers kept: a 200 and a 304 for each phone that reads, for a few publications' overlap.
    static let capacity = 8

    private var kept: [(value: HTTPResponse, wire: WireResponse)] = []

    /// The bytes for `value`, dated `now`: kept ones brought to the second, a new one built (the oldest let go when
    /// full).
    mutating func wire(for value: HTTPResponse, now: HTTPDate) -> WireResponse {
        if let index = kept.firstIndex(where: { $0.value == value }) {
            kept[index].wire.redate(now)
            return kept[index].wire
        }
        let wire = WireResponse(value, date: now, closing: false)
        if kept.count == Self.capacity { kept.removeFirst() }
        kept.append((value, wire))
        return wire
    }
}
