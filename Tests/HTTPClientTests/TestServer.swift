import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// A request as the test server read it off the socket.
struct RecordedRequest: Sendable {
    var method: String
    var path: String
    /// Lower-cased names, in order.
    var headers: [(String, String)]
    var body: [UInt8]
    /// The client's address ("127.0.0.2") for TCP; empty for Unix sockets.
    var peer: String

    func header(_ name: String) -> String? { headers.first { $0.0 == name.lowercased() }?.1 }
}

/// A tiny HTTP/1.1 server on a raw socket and one thread, answering each request with the bytes the test
/// gives. It serves connections one after another and keeps each open until the client closes it, so
/// keep-alive is observable (`connectionCount`).
final class TestServer: Sendable {
    enum Behavior: Sendable {
        /// Answer every request with these bytes (a full HTTP response).
        case respond(@Sendable (RecordedRequest) -> [UInt8])
        /// Read the request, then never answer (until the server stops).
        case silent
        /// Read the request, then close the connection without a byte.
        case hangUp
        /// Answer `answered` requests on each connection, then read the next one and close without a byte: a
        /// server that ends a kept connection just as a request comes in.
        case hangUpAfter(answered: Int, @Sendable (RecordedRequest) -> [UInt8])
        /// Answer the first request on each connection, then close it (whatever the answer said).
        case answerOnceThenClose(@Sendable (RecordedRequest) -> [UInt8])
        /// Send these bytes for the first request on each connection and these for the second, then close.
        case twoThenClose(first: [UInt8], second: [UInt8])
        /// Send `head`, then a byte every 5 ms for as long as the client reads: a server that never ends.
        case endless(head: [UInt8])
    }

    let port: UInt16
    let socketPath: String?
    private let listener: Int32
    private let state = Mutex(State())

    private struct State {
        var requests: [RecordedRequest] = []
        var connections = 0
        var current: Int32 = -1
        var stopped = false
        var listenerClosed = false
    }

    var requests: [RecordedRequest] { state.withLock { $0.requests } }
    var connectionCount: Int { state.withLock { $0.connections } }

    /// Listens on 127.0.0.1 with a port the kernel picks.
    convenience init(behavior: Behavior) throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        try Self.bindAndListen(fd, &address)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        self.init(listener: fd, port: UInt16(bigEndian: address.sin_port), socketPath: nil, behavior: behavior)
    }

    /// Listens on a Unix socket at `path`.
    convenience init(unixPath path: String, behavior: Behavior) throws {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (index, byte) in path.utf8.enumerated() { raw[index] = byte }
        }
        try Self.bindAndListen(fd, &address)
        self.init(listener: fd, port: 0, socketPath: path, behavior: behavior)
    }

    private init(listener: Int32, port: UInt16, socketPath: String?, behavior: Behavior) {
        self.listener = listener
        self.port = port
        self.socketPath = socketPath
        let thread = Thread { [self] in serve(behavior) }
        thread.start()
    }

    var baseURL: String { socketPath == nil ? "http://127.0.0.1:\(port)" : "http://localhost" }

    /// Wakes the thread (shutdown interrupts accept and recv), which then closes everything. Descriptors
    /// are only shut down or closed under the lock, so a number the kernel reuses is never touched.
    func stop() {
        let first = state.withLock { state -> Bool in
            guard !state.stopped else { return false }
            state.stopped = true
            if state.current >= 0 { shutdown(state.current, Int32(SHUT_RDWR)) }
            if !state.listenerClosed { shutdown(listener, Int32(SHUT_RDWR)) }
            return true
        }
        if first, let socketPath { unlink(socketPath) }
    }

    private static func bindAndListen<Address>(_ fd: Int32, _ address: inout Address) throws {
        let size = socklen_t(MemoryLayout<Address>.size)
        let rc = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, size) }
        }
        guard fd >= 0, rc == 0, listen(fd, 8) == 0 else {
            close(fd)
            throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
        }
    }

    private func serve(_ behavior: Behavior) {
        defer {
            state.withLock { state in
                state.listenerClosed = true
                close(listener)
            }
        }
        while true {
            var peerAddress = sockaddr_in()
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            let connection = withUnsafeMutablePointer(to: &peerAddress) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { accept(listener, $0, &length) }
            }
            guard connection >= 0 else { return }
            let peer = socketPath == nil ? String(cString: inet_ntoa(peerAddress.sin_addr)) : ""
            let stopped = state.withLock { state -> Bool in
                state.connections += 1
                state.current = connection
                return state.stopped
            }
            if !stopped { handle(connection, peer: peer, behavior: behavior) }
            state.withLock { state in
                state.current = -1
                close(connection)
            }
        }
    }

    private func handle(_ connection: Int32, peer: String, behavior: Behavior) {
        var buffer: [UInt8] = []
        var served = 0
        while let request = Self.readRequest(connection, buffer: &buffer, peer: peer) {
            state.withLock { $0.requests.append(request) }
            served += 1
            switch behavior {
            case let .respond(answer):
                guard Self.sendAll(connection, answer(request)) else { return }
            case .silent:
                var byte: UInt8 = 0
                _ = recv(connection, &byte, 1, 0)  // returns when the client gives up or the server stops
                return
            case .hangUp:
                return
            case let .hangUpAfter(answered, answer):
                guard served <= answered, Self.sendAll(connection, answer(request)) else { return }
            case let .answerOnceThenClose(answer):
                _ = Self.sendAll(connection, answer(request))
                return
            case let .twoThenClose(first, second):
                guard Self.sendAll(connection, served == 1 ? first : second), served == 1 else { return }
            case let .endless(head):
                guard Self.sendAll(connection, head) else { return }
                while !state.withLock({ $0.stopped }), Self.sendAll(connection, [UInt8(ascii: "x")]) {
                    usleep(5_000)
                }
                return
            }
        }
    }

    /// Reads one request (head, then a Content-Length body); nil when the client closed the connection.
    private static func readRequest(_ connection: Int32, buffer: inout [UInt8], peer: String) -> RecordedRequest? {
        let separator: [UInt8] = Array("\r\n\r\n".utf8)
        var headEnd: Int?
        while true {
            if headEnd == nil, let range = buffer.firstRange(of: separator) { headEnd = range.upperBound }
            if let end = headEnd {
                let head = String(decoding: buffer[..<end], as: UTF8.self)
                var lines = head.components(separatedBy: "\r\n").filter { !$0.isEmpty }
                let requestLine = lines.removeFirst().split(separator: " ")
                let headers = lines.compactMap { line -> (String, String)? in
                    guard let colon = line.firstIndex(of: ":") else { return nil }
                    return (
                        line[..<colon].lowercased(),
                        line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
                    )
                }
                let length = headers.first { $0.0 == "content-length" }.flatMap { Int($0.1) } ?? 0
                if buffer.count >= end + length {
                    let body = Array(buffer[end..<(end + length)])
                    buffer.removeFirst(end + length)
                    return RecordedRequest(
                        method: String(requestLine[0]), path: String(requestLine[1]),
                        headers: headers, body: body, peer: peer)
                }
            }
            var chunk = [UInt8](repeating: 0, count: 4096)
            let count = recv(connection, &chunk, chunk.count, 0)
            guard count > 0 else { return nil }
            buffer.append(contentsOf: chunk[..<count])
        }
    }

    private static func sendAll(_ connection: Int32, _ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes {
                send(connection, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
            }
            guard sent > 0 else { return false }
            offset += sent
        }
        return true
    }
}

/// A complete HTTP/1.1 response with a Content-Length.
func httpResponse(_ status: Int, _ reason: String, headers: [(String, String)] = [], body: [UInt8] = []) -> [UInt8] {
    var head = "HTTP/1.1 \(status) \(reason)\r\n"
    for (name, value) in headers { head += "\(name): \(value)\r\n" }
    head += "Content-Length: \(body.count)\r\n\r\n"
    return Array(head.utf8) + body
}

/// A fresh directory for Unix sockets, short enough for sun_path.
func temporaryDirectory() throws -> String {
    var template = Array("/tmp/aiden-test-XXXXXX".utf8CString)
    guard let made = mkdtemp(&template) else { throw POSIXError(.EIO) }
    return String(cString: made)
}
