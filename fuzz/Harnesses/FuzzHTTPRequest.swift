import BoardAPI
import NetworkAddress

/// An HTTP request written as text for the router harnesses, and read as the server shell hands requests to
/// the routers: `METHOD TARGET [PEER]`, then `Name: value` header lines, a blank line and the body.
///
/// The record is put on the wire as the request it names (`METHOD TARGET HTTP/1.1`, its header lines, a
/// `Content-Length` for its body) and read back by the server's own `HTTPRequestParser`, with the server's limits:
/// the routers get exactly what the server would hand them, and a record the server would refuse before routing
/// (400, 413, 431, 501, 505) is not routed here either (nil). `PEER` is an IP literal (default 192.168.42.2, the
/// phone); the request arrives on 192.168.42.1.
enum FuzzHTTPRequest {
    static let phone = IPAddress(v4: 192, 168, 42, 2)
    static let board = IPAddress(v4: 192, 168, 42, 1)
    static let limits = HTTPRequestParser.Limits(headerBytes: 32 * 1024, bodyBytes: 16 * 1024)

    static func parse(_ record: ArraySlice<UInt8>, overIP: Bool) -> HTTPRequest? {
        var (line, rest) = FuzzRecords.firstLine(record)
        let words = line.split(separator: UInt8(ascii: " "), maxSplits: 2, omittingEmptySubsequences: false)
        let target = words.count > 1 ? words[1] : []
        let peer = words.count > 2 ? IPAddress(FuzzRecords.cString(words[2])) ?? phone : phone
        var wire = Array(words[0])
        wire.append(UInt8(ascii: " "))
        wire.append(contentsOf: target)
        wire.append(contentsOf: " HTTP/1.1\r\n".utf8)
        var body: ArraySlice<UInt8> = []
        while let remaining = rest {
            (line, rest) = FuzzRecords.firstLine(remaining)
            if line.isEmpty {
                body = rest ?? []
                break
            }
            wire.append(contentsOf: line)
            wire.append(contentsOf: "\r\n".utf8)
        }
        wire.append(contentsOf: "Content-Length: \(body.count)\r\n\r\n".utf8)
        wire.append(contentsOf: body)
        var parser = HTTPRequestParser(limits: limits)
        var cursor = 0
        guard case let .head(head) = parser.next(in: wire, at: &cursor),
            case let .body(content) = parser.next(in: wire, at: &cursor)
        else { return nil }
        return HTTPRequest(
            method: head.method, path: head.path, query: head.query, headers: head.headers, body: content,
            peer: overIP ? .ip(peer) : .unixSocket, localAddress: overIP ? board : nil)
    }
}
