import BoardAPI
internal import CMicroHTTPD

/// libmicrohttpd's responses for the answers a handler gives again and again (`HTTPResponse.reusable`: a
/// publication's `/current`, its 304), each built once (body copied, header fields added) and queued for every
/// request answered with an equal value: building one per request was most of the server's own cost on the
/// phone's hot path. An equal value shares its arrays with the kept one until the next publication, so the
/// comparison is a few pointer checks.
///
/// libmicrohttpd counts a response's users: one evicted here while connections still send it is freed when the
/// last is done. Only the daemon's thread uses it (the access handler), behind the context's lock.
struct PreparedResponses: ~Copyable {
    /// Distinct reusable answers kept: a 200 and a 304 for each phone that reads, for a few publications' overlap.
    static let capacity = 8

    private var kept: [(value: HTTPResponse, prepared: OpaquePointer)] = []

    /// The prepared response for `value`, built now when none is kept (the oldest kept one is let go when full);
    /// nil when libmicrohttpd cannot build it. Not the caller's to destroy.
    mutating func response(for value: HTTPResponse) -> OpaquePointer? {
        if let index = kept.firstIndex(where: { $0.value == value }) {
            if index != kept.count - 1 { kept.append(kept.remove(at: index)) }
            return kept[kept.count - 1].prepared
        }
        guard let prepared = Self.build(value) else { return nil }
        if kept.count == Self.capacity { MHD_destroy_response(kept.removeFirst().prepared) }
        kept.append((value, prepared))
        return prepared
    }

    deinit {
        for entry in kept { MHD_destroy_response(entry.prepared) }
    }

    /// A new libmicrohttpd response holding a copy of `value`'s body and its header fields; the caller destroys it.
    static func build(_ value: HTTPResponse) -> OpaquePointer? {
        let response = value.body.withUnsafeBytes { raw in
            MHD_create_response_from_buffer(
                raw.count, UnsafeMutableRawPointer(mutating: raw.baseAddress), .RESPMEM_MUST_COPY)
        }
        guard let response else { return nil }
        for header in value.headers {
            // withCString hands over the strings' own bytes (no C copy is allocated, unlike implicit bridging).
            let added = header.name.withCString { name in
                header.value.withCString { field in MHD_add_response_header(response, name, field) }
            }
            guard added == .YES else {
                MHD_destroy_response(response)
                return nil
            }
        }
        return response
    }
}
