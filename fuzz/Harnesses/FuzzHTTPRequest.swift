import BoardAPI
import NetworkAddress

/// An HTTP request written as text for the router harnesses, and read as the server shell hands requests to
/// the routers: `METHOD TARGET [PEER]`, then `Name: value` header lines, a blank line and the body.
///
/// The target is split at the first `?`; the path and each `name=value` of the query are percent-decoded
/// (`+` is a space in the query), as libmicrohttpd does before the routers see them. `PEER` is an IP
/// literal (default 192.168.42.2, the phone); the request arrives on 192.168.42.1.
enum FuzzHTTPRequest {
    static let phone = IPAddress(v4: 192, 168, 42, 2)
    static let board = IPAddress(v4: 192, 168, 42, 1)

    static func parse(_ record: ArraySlice<UInt8>, overIP: Bool) -> HTTPRequest {
        var (line, rest) = FuzzRecords.firstLine(record)
        let words = line.split(separator: UInt8(ascii: " "), maxSplits: 2, omittingEmptySubsequences: false)
        let method = FuzzRecords.cString(words[0])
        let target = words.count > 1 ? words[1] : []
        let peer = words.count > 2 ? IPAddress(FuzzRecords.cString(words[2])) ?? phone : phone
        let queryStart = target.firstIndex(of: UInt8(ascii: "?"))
        let path = FuzzRecords.cString(percentDecoded(target[..<(queryStart ?? target.endIndex)], plusIsSpace: false))
        var query: [(name: String, value: String)] = []
        if let queryStart {
            for pair in target[(queryStart + 1)...].split(separator: UInt8(ascii: "&")) {
                let parts = pair.split(separator: UInt8(ascii: "="), maxSplits: 1, omittingEmptySubsequences: false)
                query.append(
                    (
                        name: FuzzRecords.cString(percentDecoded(parts[0], plusIsSpace: true)),
                        value: parts.count > 1 ? FuzzRecords.cString(percentDecoded(parts[1], plusIsSpace: true)) : ""
                    ))
            }
        }
        var headers: [String: String] = [:]
        var body: ArraySlice<UInt8> = []
        while let remaining = rest {
            (line, rest) = FuzzRecords.firstLine(remaining)
            if line.isEmpty {
                body = rest ?? []
                break
            }
            guard let colon = line.firstIndex(of: UInt8(ascii: ":")) else { continue }
            let name = FuzzRecords.cString(line[..<colon]).lowercased()
            let value = FuzzRecords.cString(line[(colon + 1)...].drop { $0 == UInt8(ascii: " ") })
            if headers[name] == nil { headers[name] = value }
        }
        return HTTPRequest(
            method: method, path: path, query: query, headers: headers, body: Array(body),
            peer: overIP ? .ip(peer) : .unixSocket, localAddress: overIP ? board : nil)
    }

    private static func percentDecoded(_ bytes: ArraySlice<UInt8>, plusIsSpace: Bool) -> [UInt8] {
        var out: [UInt8] = []
        var index = bytes.startIndex
        while index < bytes.endIndex {
            let byte = bytes[index]
            if byte == UInt8(ascii: "%"), index + 2 < bytes.endIndex,
                let high = hexValue(bytes[index + 1]), let low = hexValue(bytes[index + 2])
            {
                out.append(high << 4 | low)
                index += 3
            } else {
                out.append(plusIsSpace && byte == UInt8(ascii: "+") ? UInt8(ascii: " ") : byte)
                index += 1
            }
        }
        return out
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
