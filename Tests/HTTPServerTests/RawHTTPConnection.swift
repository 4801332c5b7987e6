#if canImport(Glibc)
import Glibc
#endif

/// A deliberately dumb HTTP/1.1 client over a raw socket, so tests control every byte, the source
/// address and the timing (keep-alive, slow clients, floods) without another library in the way.
final class RawHTTPConnection {
    struct Response {
        var status: Int
        var headers: [String: String]
        var body: [UInt8]
        var bodyText: String { String(decoding: body, as: UTF8.self) }
    }

    enum Failure: Error { case connect(Int32), closed, timeout, malformed(String) }

    let fd: Int32
    private var buffer: [UInt8] = []

    /// Connects over TCP to 127.0.0.1:port, optionally from a given loopback source address.
    init(port: UInt16, host: String = "127.0.0.1", source: String? = nil, receiveTimeoutSeconds: Int = 5) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        Self.setTimeout(fd, receiveTimeoutSeconds)
        if let source {
            var local = sockaddr_in()
            local.sin_family = sa_family_t(AF_INET)
            inet_pton(AF_INET, source, &local.sin_addr)
            _ = withUnsafePointer(to: &local) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
        }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        inet_pton(AF_INET, host, &address.sin_addr)
        let rc = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard rc == 0 else {
            let code = errno
            close(fd)
            throw Failure.connect(code)
        }
    }

    /// Connects to a Unix stream socket.
    init(unixPath: String, receiveTimeoutSeconds: Int = 5) throws {
        fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        Self.setTimeout(fd, receiveTimeoutSeconds)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (index, byte) in unixPath.utf8.enumerated() { raw[index] = byte }
        }
        let rc = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard rc == 0 else {
            let code = errno
            close(fd)
            throw Failure.connect(code)
        }
    }

    deinit { close(fd) }

    private static func setTimeout(_ fd: Int32, _ seconds: Int) {
        var timeout = timeval(tv_sec: seconds, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    }

    func send(_ text: String) { send(Array(text.utf8)) }

    func send(_ bytes: [UInt8]) {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes {
                Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
            }
            guard sent > 0 else { return }
            offset += sent
        }
    }

    /// Sends a request with Host and Content-Length filled in.
    func request(
        _ method: String, _ target: String, host: String? = "localhost", headers: [String: String] = [:],
        body: [UInt8] = []
    ) throws -> Response {
        var text = "\(method) \(target) HTTP/1.1\r\n"
        if let host { text += "Host: \(host)\r\n" }
        for (name, value) in headers { text += "\(name): \(value)\r\n" }
        if !body.isEmpty || method == "POST" || method == "PATCH" { text += "Content-Length: \(body.count)\r\n" }
        text += "\r\n"
        send(Array(text.utf8) + body)
        return try readResponse()
    }

    /// Reads one response (Content-Length framed, the only framing the server sends).
    /// The next response; `toHEAD`: an answer to HEAD, whose `Content-Length` names a body that is not sent.
    func readResponse(toHEAD: Bool = false) throws -> Response {
        while true {
            if let end = headerEnd() {
                let head = String(decoding: buffer[..<end], as: UTF8.self)
                var lines = head.split(separator: "\r\n").map(String.init)
                guard !lines.isEmpty else { throw Failure.malformed(head) }
                let statusLine = lines.removeFirst().split(separator: " ")
                guard statusLine.count >= 2, let status = Int(statusLine[1]) else { throw Failure.malformed(head) }
                var headers: [String: String] = [:]
                for line in lines {
                    guard let colon = line.firstIndex(of: ":") else { continue }
                    headers[line[..<colon].lowercased()] = line[line.index(after: colon)...]
                        .trimmingCharacters(in: " ")
                }
                let length = toHEAD ? 0 : Int(headers["content-length"] ?? "0") ?? 0
                while buffer.count < end + 4 + length { try fill() }
                let body = Array(buffer[(end + 4)..<(end + 4 + length)])
                buffer.removeFirst(end + 4 + length)
                return Response(status: status, headers: headers, body: body)
            }
            try fill()
        }
    }

    /// How many bytes arrive until the server closes the connection (read returns 0, or a reset), and whether it
    /// did within the receive timeout.
    func bytesUntilClose() -> (count: Int, closed: Bool) {
        var scratch = [UInt8](repeating: 0, count: 65_536)
        var total = buffer.count
        while true {
            let count = scratch.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count == 0 { return (total, true) }
            if count < 0 { return (total, errno == ECONNRESET) }
            total += count
        }
    }

    /// Whether the server has closed the connection (read returns 0) within the receive timeout.
    func waitForClose() -> Bool {
        var scratch = [UInt8](repeating: 0, count: 512)
        while true {
            let count = scratch.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count == 0 { return true }
            if count < 0 { return errno == ECONNRESET }
        }
    }

    private func headerEnd() -> Int? {
        guard buffer.count >= 4 else { return nil }
        for index in 0...(buffer.count - 4)
        where buffer[index] == 13 && buffer[index + 1] == 10 && buffer[index + 2] == 13 && buffer[index + 3] == 10 {
            return index
        }
        return nil
    }

    private func fill() throws {
        var scratch = [UInt8](repeating: 0, count: 4096)
        let count = scratch.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        if count == 0 { throw Failure.closed }
        if count < 0 { throw errno == EAGAIN || errno == EWOULDBLOCK ? Failure.timeout : Failure.closed }
        buffer.append(contentsOf: scratch[..<count])
    }
}

extension Substring {
    fileprivate func trimmingCharacters(in set: Character) -> String {
        String(drop(while: { $0 == set }).reversed().drop(while: { $0 == set }).reversed())
    }
}
