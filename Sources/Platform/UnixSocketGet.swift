#if canImport(Glibc)
import Glibc
#endif

/// One `GET` over a daemon's Unix stream socket, in HTTP/1.0 (the server closes the connection after the answer, so
/// reading to the end is the whole answer): what the board's doctor needs to read `/v1/status` from its own daemon.
/// The board links no HTTP client: libcurl and the libraries it loads (TLS, Kerberos, LDAP) cost the board about
/// 3 MB of resident memory and 0.8 MB of private memory (`bench/run`), for one request a person makes by hand.
package enum UnixSocketGet {
    package struct Answer: Equatable, Sendable {
        /// The status code of the answer's first line.
        package var status: Int
        package var body: [UInt8]
    }

    /// Sends `GET target` to the socket at `path` and reads the answer, each wait for the socket at most
    /// `timeoutMilliseconds`; nil when nothing answers in time, the answer is not HTTP, or it is longer than
    /// `limit` bytes.
    package static func get(_ target: String, socket path: String, limit: Int, timeoutMilliseconds: Int32) -> Answer? {
        guard case .success(let fd) = UnixSocketAddress(path: path)?.connectedStream() else { return nil }
        defer { close(fd) }
        let request = Array("GET \(target) HTTP/1.0\r\nHost: localhost\r\n\r\n".utf8)
        guard OutputDescriptor(fd).write(request[...]) else { return nil }
        var response: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            var ready = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&ready, 1, timeoutMilliseconds) == 1 else { return nil }
            switch InputDescriptor(fd).read(into: &buffer) {
            case .bytes(let count):
                response += buffer.prefix(count)
                guard response.count <= limit else { return nil }
            case .end:
                return parse(response)
            case .nothing:
                return nil
            }
        }
    }

    /// The status and body of a whole HTTP/1.x answer; nil when it is not one.
    static func parse(_ response: [UInt8]) -> Answer? {
        guard let split = response.firstRange(of: Array("\r\n\r\n".utf8)),
            let lineEnd = response.firstRange(of: Array("\r\n".utf8))
        else { return nil }
        let words = response[..<lineEnd.lowerBound].split(separator: UInt8(ascii: " "), maxSplits: 2)
        guard words.count >= 2, words[0].starts(with: Array("HTTP/1.".utf8)), words[1].count == 3,
            let status = Int(String(decoding: words[1], as: UTF8.self))
        else { return nil }
        return Answer(status: status, body: Array(response[split.upperBound...]))
    }
}
