import BoardAPI
internal import CMicroHTTPD
import NetworkAddress
import Platform

#if canImport(Glibc)
import Glibc
#endif

/// MHD's access handler: called once when headers are in (allocate state), once per body chunk,
/// and once at the end (answer). Answering on a later call, not the first, keeps keep-alive working
/// (a response queued on the first call goes out with `Connection: close`); the exceptions are refusals
/// decided from the connection or the headers alone (a refused peer, the admission check, a declared body over the
/// limit), sent at once so the body is never read. A handler that answers later (`HTTPReply.later`) has the
/// connection suspended; when the answer comes, MHD resumes it and calls here once more, and the answer is queued
/// then.
let accessHandler: MHD_AccessHandlerCallback = {
    cls, connection, url, method, _, uploadData, uploadDataSize, requestClass in
    guard let cls, let connection, let requestClass, let uploadDataSize else { return .NO }
    let context = Unmanaged<ServerContext>.fromOpaque(cls).takeUnretainedValue()

    guard let stored = requestClass.pointee else {
        let state = RequestState()
        requestClass.pointee = Unmanaged.passRetained(state).toOpaque()
        if let refusal = record(of: connection).refusal {
            state.responded = true
            context.connections.withLock { $0.requestArrived(connectionID(connection)) }
            var closing = refusal
            closing.headers.append(("Connection", "close"))
            return queue(closing, on: connection, context: context)
        }
        context.connections.withLock { $0.headersArrived(connectionID(connection)) }
        // Read from libmicrohttpd once, when the headers are in; the body joins it at the end.
        let head = request(connection, url: url, method: method, context: context, body: [])
        state.head = head
        if let admit = context.admission.admitHeaders, let refusal = admit(head) {
            state.responded = true
            context.connections.withLock { $0.requestArrived(connectionID(connection)) }
            return queue(refusal, on: connection, context: context)
        }
        if let declared = head.header("content-length"), let length = Int(declared),
            length > context.limits.maxBodyBytes
        {
            state.responded = true
            context.connections.withLock { $0.requestArrived(connectionID(connection)) }
            return queue(
                HTTPResponses.payloadTooLarge(limit: context.limits.maxBodyBytes), on: connection, context: context)
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
    guard !state.responded else {
        // Called again after a resume: the deferred answer is in.
        guard let response = state.deferred?.take() else { return .YES }
        return queue(response, on: connection, context: context)
    }
    state.responded = true
    context.connections.withLock { $0.requestArrived(connectionID(connection)) }
    if state.bodyTooLarge {
        return queue(
            HTTPResponses.payloadTooLarge(limit: context.limits.maxBodyBytes), on: connection, context: context)
    }
    var whole = state.head ?? request(connection, url: url, method: method, context: context, body: [])
    whole.body = state.body
    state.head = nil
    state.body = []
    switch context.handler(whole) {
    case let .now(response):
        return queue(response, on: connection, context: context)
    case let .later(start):
        let deferred = DeferredResponse(connection: connection, context: context)
        start { response in deferred.send(response) }
        guard let response = deferred.suspendUnlessAnswered() else {
            state.deferred = deferred
            return .YES
        }
        return queue(response, on: connection, context: context)
    }
}

/// The request as the handlers see it: without its body when only the headers are in.
private func request(
    _ connection: OpaquePointer, url: UnsafePointer<CChar>?, method: UnsafePointer<CChar>?, context: ServerContext,
    body: [UInt8]
) -> HTTPRequest {
    let record = record(of: connection)
    return HTTPRequest(
        method: method.map { String(cString: $0) } ?? "",
        path: url.map { String(cString: $0) } ?? "/",
        query: queryValues(connection),
        headers: headerFields(connection),
        body: body,
        peer: context.isUnixSocket ? .unixSocket : record.peer,
        localAddress: context.isUnixSocket ? nil : record.local,
        credentials: record.credentials)
}

/// The table's key for a connection: its address, unique while it is open.
func connectionID(_ connection: OpaquePointer) -> UInt { UInt(bitPattern: Int(bitPattern: connection)) }

/// When a connection opens: its facts are looked up once (addresses, arrival interface, peer process), the
/// admission decides whether it is served or refused (answered 403 once its headers are in), both are kept for its
/// requests, and it enters the table (the deadlines, its class's budget and its peer's). When it closes, it leaves
/// the table before MHD closes the descriptor.
let connectionNotified: MHD_NotifyConnectionCallback = { cls, connection, socketContext, code in
    guard let cls, let connection, let socketContext else { return }
    let context = Unmanaged<ServerContext>.fromOpaque(cls).takeUnretainedValue()
    let id = connectionID(connection)
    // MHD_CONNECTION_NOTIFY_STARTED = 0, MHD_CONNECTION_NOTIFY_CLOSED = 1 (the names do not import).
    switch code.rawValue {
    case 0:
        let descriptor = aiden_mhd_connection_fd(connection)?.pointee.connect_fd ?? -1
        if context.isUnixSocket {
            let record = ConnectionRecord(
                peer: .unixSocket, local: nil, credentials: ConnectionFacts.credentials(of: descriptor))
            socketContext.pointee = Unmanaged.passRetained(record).toOpaque()
            let open = context.connections.withLock {
                let now = context.now()
                context.waitBegan(at: now, opening: true)
                return $0.open(
                    id, descriptor: descriptor, peer: record.credentials.map { ConnectionTable.peerKey(uid: $0.uid) },
                    at: now)
            }
            if let credentials = record.credentials, open > context.limits.perPeerConnectionLimit {
                context.refuse(id)
                context.admission.refusedProcess?(credentials, open)
            }
            return
        }
        let peer = peerAddress(connection)
        let local = SockaddrStorage.localEndpoint(of: descriptor)?.address
        var refusal: HTTPResponse?
        if case let .ip(address) = peer, let refuse = context.admission.refuseConnection {
            refusal = refuse(address, local, ConnectionFacts.arrivalInterface(of: descriptor))
        }
        let record = ConnectionRecord(peer: peer, local: local, credentials: nil, refusal: refusal)
        socketContext.pointee = Unmanaged.passRetained(record).toOpaque()
        if case let .ip(address) = peer {
            context.admit(
                id, descriptor: descriptor, peer: address, refused: refusal != nil,
                requestIn: ConnectionFacts.requestIn(descriptor))
        }
    case 1:
        context.connections.withLock { $0.close(id) }
        if let stored = socketContext.pointee { Unmanaged<ConnectionRecord>.fromOpaque(stored).release() }
        socketContext.pointee = nil
    default:
        break
    }
}

/// What one connection is, fixed for its life.
final class ConnectionRecord {
    let peer: HTTPRequest.Peer
    let local: IPAddress?
    let credentials: HTTPRequest.Credentials?
    /// The admission refused it: every request it makes is answered with this (403), never routed.
    let refusal: HTTPResponse?

    init(
        peer: HTTPRequest.Peer, local: IPAddress?, credentials: HTTPRequest.Credentials?, refusal: HTTPResponse? = nil
    ) {
        self.peer = peer
        self.local = local
        self.credentials = credentials
        self.refusal = refusal
    }
}

/// The connection's record from its open, or looked up now when MHD did not tell us it opened.
private func record(of connection: OpaquePointer) -> ConnectionRecord {
    if let stored = aiden_mhd_socket_context(connection) {
        return Unmanaged<ConnectionRecord>.fromOpaque(stored).takeUnretainedValue()
    }
    return ConnectionRecord(peer: peerAddress(connection), local: localAddress(connection), credentials: nil)
}

/// Releases the per-request state when MHD is done with the request (answered, timed out or reset); the
/// connection's clock for its next request starts.
let requestCompleted: MHD_RequestCompletedCallback = { cls, connection, requestClass, _ in
    if let cls, let connection {
        let context = Unmanaged<ServerContext>.fromOpaque(cls).takeUnretainedValue()
        let now = context.now()
        context.connections.withLock {
            $0.answered(connectionID(connection), at: now)
            context.waitBegan(at: now)
        }
    }
    guard let requestClass, let stored = requestClass.pointee else { return }
    Unmanaged<RequestState>.fromOpaque(stored).takeUnretainedValue().deferred?.complete()
    Unmanaged<RequestState>.fromOpaque(stored).release()
    requestClass.pointee = nil
}

private func queue(_ response: HTTPResponse, on connection: OpaquePointer, context: ServerContext) -> MHD_Result {
    if response.reusable {
        guard let prepared = context.prepared.withLock({ $0.response(for: response) }) else { return .NO }
        return MHD_queue_response(connection, UInt32(response.status), prepared)
    }
    guard let built = PreparedResponses.build(response) else { return .NO }
    defer { MHD_destroy_response(built) }
    return MHD_queue_response(connection, UInt32(response.status), built)
}

/// The query's parameters in order, read straight from libmicrohttpd's table.
private func queryValues(_ connection: OpaquePointer) -> [(name: String, value: String)] {
    var values: [(name: String, value: String)] = []
    withUnsafeMutablePointer(to: &values) { pointer in
        _ = MHD_get_connection_values(
            connection, .GET_ARGUMENT_KIND,
            { cls, _, key, value in
                guard let cls, let key else { return .YES }
                cls.assumingMemoryBound(to: [(name: String, value: String)].self).pointee.append(
                    (String(cString: key), value.map { String(cString: $0) } ?? ""))
                return .YES
            }, pointer)
    }
    return values
}

/// The header fields by lower-cased name (the first of repeated ones), built in one pass over libmicrohttpd's
/// table: the names lower-cased from their bytes, each field hashed once.
private func headerFields(_ connection: OpaquePointer) -> [String: String] {
    var fields = [String: String](minimumCapacity: 8)  // a phone sends four or five: never grown
    withUnsafeMutablePointer(to: &fields) { pointer in
        _ = MHD_get_connection_values(
            connection, .HEADER_KIND,
            { cls, _, key, value in
                guard let cls, let key else { return .YES }
                let name = lowercasedName(key)
                let fields = cls.assumingMemoryBound(to: [String: String].self)
                // One hash per field; a repeated name keeps its first value.
                if let first = fields.pointee.updateValue(value.map { String(cString: $0) } ?? "", forKey: name) {
                    fields.pointee[name] = first
                }
                return .YES
            }, pointer)
    }
    return fields
}

/// A header name lower-cased: field names are ASCII tokens, lower-cased byte by byte here; anything else goes
/// through `String.lowercased()`, as every name once did.
private func lowercasedName(_ key: UnsafePointer<CChar>) -> String {
    let count = strlen(key)
    return key.withMemoryRebound(to: UInt8.self, capacity: count) { bytes in
        let source = UnsafeBufferPointer(start: bytes, count: count)
        guard !source.contains(where: { $0 >= 0x80 }) else { return String(cString: key).lowercased() }
        guard source.contains(where: { $0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "Z") }) else {
            return String(decoding: source, as: UTF8.self)
        }
        return String(unsafeUninitializedCapacity: count) { target in
            for (index, byte) in source.enumerated() {
                target[index] = byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte | 0x20 : byte
            }
            return count
        }
    }
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
