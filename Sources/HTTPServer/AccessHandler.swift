import BoardAPI
internal import CMicroHTTPD
import NetworkAddress
import Platform

#if canImport(Glibc)
import Glibc
#endif

/// MHD's access handler: called once when headers are in (allocate state), once per body chunk,
/// and once at the end (answer). Answering on a later call, not the first, keeps keep-alive working
/// (SWIFT-C-NOTES.md pitfall 4); the one exception is a declared body over the limit, refused at once.
let accessHandler: MHD_AccessHandlerCallback = {
    cls, connection, url, method, _, uploadData, uploadDataSize, requestClass in
    guard let cls, let connection, let requestClass, let uploadDataSize else { return .NO }
    let context = Unmanaged<ServerContext>.fromOpaque(cls).takeUnretainedValue()

    guard let stored = requestClass.pointee else {
        let state = RequestState()
        requestClass.pointee = Unmanaged.passRetained(state).toOpaque()
        if let declared = headerValue(connection, "Content-Length"), let length = Int(declared),
            length > context.limits.maxBodyBytes
        {
            state.responded = true
            return queue(HTTPResponses.payloadTooLarge(limit: context.limits.maxBodyBytes), on: connection)
        }
        return .YES
    }
    let state = Unmanaged<RequestState>.fromOpaque(stored).takeUnretainedValue()
    if uploadDataSize.pointee > 0 {
        if let uploadData, !state.bodyTooLarge {
            if state.body.count + uploadDataSize.pointee > context.limits.maxBodyBytes {
                state.bodyTooLarge = true
                state.body = []
            } else {
                uploadData.withMemoryRebound(to: UInt8.self, capacity: uploadDataSize.pointee) {
                    state.body.append(contentsOf: UnsafeBufferPointer(start: $0, count: uploadDataSize.pointee))
                }
            }
        }
        uploadDataSize.pointee = 0
        return .YES
    }
    guard !state.responded else { return .YES }
    state.responded = true
    if state.bodyTooLarge {
        return queue(HTTPResponses.payloadTooLarge(limit: context.limits.maxBodyBytes), on: connection)
    }
    let request = HTTPRequest(
        method: method.map { String(cString: $0) } ?? "",
        path: url.map { String(cString: $0) } ?? "/",
        query: collectValues(connection, kind: .GET_ARGUMENT_KIND),
        headers: Dictionary(
            collectValues(connection, kind: .HEADER_KIND).map { ($0.name.lowercased(), $0.value) },
            uniquingKeysWith: { first, _ in first }),
        body: state.body,
        peer: context.isUnixSocket ? .unixSocket : addresses(of: connection).peer,
        localAddress: context.isUnixSocket ? nil : addresses(of: connection).local)
    return queue(context.handler(request), on: connection)
}

/// Looks up a TCP connection's two addresses once, when it opens, and forgets them when it closes:
/// the requests of a keep-alive connection reuse them instead of a getsockname(2) each.
let connectionNotified: MHD_NotifyConnectionCallback = { _, connection, socketContext, code in
    guard let connection, let socketContext else { return }
    // MHD_CONNECTION_NOTIFY_STARTED = 0, MHD_CONNECTION_NOTIFY_CLOSED = 1 (the names do not import).
    switch code.rawValue {
    case 0:
        let addresses = ConnectionAddresses(peer: peerAddress(connection), local: localAddress(connection))
        socketContext.pointee = Unmanaged.passRetained(addresses).toOpaque()
    case 1:
        if let stored = socketContext.pointee { Unmanaged<ConnectionAddresses>.fromOpaque(stored).release() }
        socketContext.pointee = nil
    default:
        break
    }
}

/// The addresses of one TCP connection, fixed for its life.
final class ConnectionAddresses {
    let peer: HTTPRequest.Peer
    let local: IPAddress?

    init(peer: HTTPRequest.Peer, local: IPAddress?) {
        self.peer = peer
        self.local = local
    }
}

/// The connection's addresses from its open, or looked up now when MHD did not tell us it opened.
private func addresses(of connection: OpaquePointer) -> (peer: HTTPRequest.Peer, local: IPAddress?) {
    if let stored = aiden_mhd_socket_context(connection) {
        let addresses = Unmanaged<ConnectionAddresses>.fromOpaque(stored).takeUnretainedValue()
        return (addresses.peer, addresses.local)
    }
    return (peerAddress(connection), localAddress(connection))
}

/// Releases the per-request state when MHD is done with the request (answered, timed out or reset).
let requestCompleted: MHD_RequestCompletedCallback = { _, _, requestClass, _ in
    guard let requestClass, let stored = requestClass.pointee else { return }
    Unmanaged<RequestState>.fromOpaque(stored).release()
    requestClass.pointee = nil
}

private func queue(_ response: HTTPResponse, on connection: OpaquePointer) -> MHD_Result {
    let mhdResponse = response.body.withUnsafeBytes { raw in
        MHD_create_response_from_buffer(
            raw.count, UnsafeMutableRawPointer(mutating: raw.baseAddress),
            .RESPMEM_MUST_COPY)
    }
    guard let mhdResponse else { return .NO }
    defer { MHD_destroy_response(mhdResponse) }
    for header in response.headers {
        // withCString hands over the strings' own bytes (no C copy is allocated, unlike implicit bridging).
        let added = header.name.withCString { name in
            header.value.withCString { value in MHD_add_response_header(mhdResponse, name, value) }
        }
        guard added == .YES else { return .NO }
    }
    return MHD_queue_response(connection, UInt32(response.status), mhdResponse)
}

private func headerValue(_ connection: OpaquePointer, _ name: String) -> String? {
    MHD_lookup_connection_value(connection, .HEADER_KIND, name).map { String(cString: $0) }
}

private final class ValueCollector {
    var values: [(name: String, value: String)] = []
}

private func collectValues(_ connection: OpaquePointer, kind: MHD_ValueKind) -> [(name: String, value: String)] {
    let collector = ValueCollector()
    let unmanaged = Unmanaged.passUnretained(collector)
    _ = MHD_get_connection_values(
        connection, kind,
        { cls, _, key, value in
            guard let cls, let key else { return .YES }
            let collector = Unmanaged<ValueCollector>.fromOpaque(cls).takeUnretainedValue()
            collector.values.append((String(cString: key), value.map { String(cString: $0) } ?? ""))
            return .YES
        }, unmanaged.toOpaque())
    return withExtendedLifetime(collector) { collector.values }
}

private func peerAddress(_ connection: OpaquePointer) -> HTTPRequest.Peer {
    guard let info = aiden_mhd_client_address(connection), let address = info.pointee.client_addr,
        let endpoint = SockaddrStorage.endpoint(from: address)
    else { return .ip(.v6(high: 0, low: 0)) }  // unknown peer: the unspecified address is never allowed
    return .ip(endpoint.address)
}

private func localAddress(_ connection: OpaquePointer) -> IPAddress? {
    guard let info = aiden_mhd_connection_fd(connection) else { return nil }
    return SockaddrStorage.localEndpoint(of: info.pointee.connect_fd)?.address
}
