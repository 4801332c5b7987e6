import Glibc

/// A minimal HTTP/1.0 client over a Unix or loopback TCP socket, for talking to a spawned aiden-board
/// (Foundation-free, bounded by a 5 s poll per read).
enum RawHTTP {
    struct Response {
        var status: Int
        var body: String
    }

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    static func unix(_ path: String, _ method: String, _ target: String, body: String = "") throws -> Response {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (index, byte) in path.utf8.enumerated() { raw[index] = byte }
        }
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard connected == 0 else { throw Failure(description: "connect \(path): errno \(errno)") }
        return try exchange(fd, method, target, host: "localhost", body: body)
    }

    static func loopback(port: UInt16, _ method: String, _ target: String, body: String = "") throws -> Response {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = UInt32(0x7f00_0001).bigEndian
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else { throw Failure(description: "connect 127.0.0.1:\(port): errno \(errno)") }
        return try exchange(fd, method, target, host: "127.0.0.1:\(port)", body: body)
    }

    /// A port on 127.0.0.1 that was free a moment ago for both TCP and UDP, chosen below the kernel's
    /// ephemeral range (32768–60999): a port the kernel hands out (bind to 0) can be taken a moment later
    /// as the local port of any outgoing connection, and the daemon's bind then fails.
    static func freeLoopbackPort() throws -> UInt16 {
        for _ in 0..<500 {
            let port = UInt16.random(in: 20_000..<32_000)
            if canBind(port, type: SOCK_STREAM) && canBind(port, type: SOCK_DGRAM) { return port }
        }
        throw Failure(description: "no free port below the ephemeral range")
    }

    private static func canBind(_ port: UInt16, type: __socket_type) -> Bool {
        let fd = socket(AF_INET, Int32(type.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = UInt32(0x7f00_0001).bigEndian
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
    }

    private static func exchange(
        _ fd: Int32, _ method: String, _ target: String, host: String, body: String
    ) throws
        -> Response
    {
        let payload = Array(body.utf8)
        var request = Array("\(method) \(target) HTTP/1.0\r\nHost: \(host)\r\n".utf8)
        if !payload.isEmpty {
            request += Array("Content-Type: application/json\r\nContent-Length: \(payload.count)\r\n".utf8)
        }
        request += Array("\r\n".utf8) + payload
        guard request.withUnsafeBytes({ write(fd, $0.baseAddress, $0.count) }) == request.count else {
            throw Failure(description: "short write")
        }
        var response: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            var descriptor = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&descriptor, 1, 5000) == 1 else { throw Failure(description: "no answer in 5 s") }
            let count = read(fd, &chunk, chunk.count)
            if count <= 0 { break }
            response += chunk[0..<count]
        }
        let text = String(decoding: response, as: UTF8.self)
        guard let statusLine = text.split(separator: "\r\n").first, statusLine.split(separator: " ").count >= 2,
            let status = Int(statusLine.split(separator: " ")[1])
        else { throw Failure(description: "not HTTP: \(text.prefix(80))") }
        let bodyText = text.range(of: "\r\n\r\n").map { String(text[$0.upperBound...]) } ?? ""
        return Response(status: status, body: bodyText)
    }
}
