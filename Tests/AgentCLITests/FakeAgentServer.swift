import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// A canned stand-in for aiden-board's agent socket: a raw Unix stream socket served by one thread, answering
/// each request with what the test's closure returns for it (by arrival index), or hanging up.
final class FakeAgentServer: Sendable {
    struct Request: Sendable {
        var method: String
        var path: String
        /// Lower-cased names.
        var headers: [String: String]
        var body: [UInt8]
    }

    enum Reply: Sendable {
        case answer(status: Int, body: String)
        /// Close the connection without a byte (what a crash or reset looks like to the client).
        case hangUp
    }

    let path: String
    private let listener: Int32
    private let state = Mutex(State())

    private struct State {
        var requests: [Request] = []
        var current: Int32 = -1
        var stopped = false
        var listenerClosed = false
    }

    var requests: [Request] { state.withLock { $0.requests } }

    init(path: String, reply: @escaping @Sendable (Request, Int) -> Reply) throws {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (index, byte) in path.utf8.enumerated() { raw[index] = byte }
        }
        let rc = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard fd >= 0, rc == 0, listen(fd, 8) == 0 else {
            close(fd)
            throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
        }
        self.path = path
        self.listener = fd
        Thread { [self] in serve(reply) }.start()
    }

    /// Descriptors are shut down and closed only under the lock, so a reused descriptor number is never hit.
    func stop() {
        state.withLock { state in
            guard !state.stopped else { return }
            state.stopped = true
            if state.current >= 0 { shutdown(state.current, Int32(SHUT_RDWR)) }
            if !state.listenerClosed { shutdown(listener, Int32(SHUT_RDWR)) }
        }
        unlink(path)
    }

    private func serve(_ reply: @Sendable (Request, Int) -> Reply) {
        defer {
            state.withLock { state in
                state.listenerClosed = true
                close(listener)
            }
        }
        while true {
            let connection = accept(listener, nil, nil)
            guard connection >= 0 else { return }
            let stopped = state.withLock { state -> Bool in
                state.current = connection
                return state.stopped
            }
            if !stopped { handle(connection, reply: reply) }
            state.withLock { state in
                state.current = -1
                close(connection)
            }
        }
    }

    private func handle(_ connection: Int32, reply: @Sendable (Request, Int) -> Reply) {
        var buffer: [UInt8] = []
        while let request = Self.readRequest(connection, buffer: &buffer) {
            let index = state.withLock { state -> Int in
                state.requests.append(request)
                return state.requests.count - 1
            }
            switch reply(request, index) {
            case .hangUp:
                return
            case let .answer(status, body):
                let bytes = Array(body.utf8)
                let head =
                    "HTTP/1.1 \(status) Canned\r\nContent-Type: application/json\r\n"
                    + "Content-Length: \(bytes.count)\r\n\r\n"
                let all = Array(head.utf8) + bytes
                var offset = 0
                while offset < all.count {
                    let sent = all[offset...].withUnsafeBytes {
                        send(connection, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
                    }
                    guard sent > 0 else { return }
                    offset += sent
                }
            }
        }
    }

    private static func readRequest(_ connection: Int32, buffer: inout [UInt8]) -> Request? {
        let separator: [UInt8] = Array("\r\n\r\n".utf8)
        while true {
            if let range = buffer.firstRange(of: separator) {
                let head = String(decoding: buffer[..<range.lowerBound], as: UTF8.self)
                var lines = head.components(separatedBy: "\r\n")
                let requestLine = lines.removeFirst().split(separator: " ")
                var headers: [String: String] = [:]
                for line in lines {
                    guard let colon = line.firstIndex(of: ":") else { continue }
                    headers[line[..<colon].lowercased()] =
                        line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
                }
                let length = headers["content-length"].flatMap { Int($0) } ?? 0
                let end = range.upperBound
                if buffer.count >= end + length {
                    let body = Array(buffer[end..<(end + length)])
                    buffer.removeFirst(end + length)
                    return Request(
                        method: String(requestLine[0]), path: String(requestLine[1]), headers: headers,
                        body: body)
                }
            }
            var chunk = [UInt8](repeating: 0, count: 4096)
            let count = recv(connection, &chunk, chunk.count, 0)
            guard count > 0 else { return nil }
            buffer.append(contentsOf: chunk[..<count])
        }
    }
}
