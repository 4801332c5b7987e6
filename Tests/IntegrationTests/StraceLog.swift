/// The socket addresses in an `strace -f -e trace=connect,bind,sendto,sendmsg,sendmmsg` log, and which of
/// them are outside what the daemons may talk to: loopback, the ECM subnet, Unix sockets, and the kernel
/// itself (netlink: `getifaddrs` and the doctor's interface reads). `AF_UNSPEC` (a `connect` that dissolves a
/// datagram socket's association) names no peer.
///
/// Quoted strings (data, paths) are set aside before the line is read, so bytes a daemon sends can never pass
/// for an address, and an address is read only from the structure strace prints for it.
struct StraceLog {
    /// One socket address in one system call.
    struct Address: Equatable, CustomStringConvertible {
        var call: String
        var family: String
        /// The IP address (`AF_INET`, `AF_INET6`) or path (`AF_UNIX`), empty for other families.
        var host: String
        var port: Int?

        var description: String { "\(call) \(family) \(host)\(port.map { ":\($0)" } ?? "")" }
    }

    private(set) var addresses: [Address] = []
    /// System calls of the traced set seen (with or without an address).
    private(set) var calls = 0

    init(_ text: String) {
        for line in text.split(separator: "\n") {
            let (skeleton, strings) = Self.setAsideStrings(String(line))
            guard let call = Self.tracedCall(in: skeleton) else { continue }
            calls += 1
            var rest = Substring(skeleton)
            while let range = rest.range(of: "{sa_family=") {
                rest = rest[range.upperBound...]
                let family = String(rest.prefix { $0.isLetter || $0.isNumber || $0 == "_" })
                let structure = rest.prefix { $0 != "}" }
                var host = ""
                if let quoted = Self.argument(of: "inet_addr(", in: structure) ?? Self.inet6(in: structure)
                    ?? Self.argument(of: "sun_path=", in: structure)
                {
                    host = strings[Int(quoted) ?? -1] ?? ""
                }
                let port = Self.argument(of: "htons(", in: structure).flatMap { Int($0) }
                addresses.append(Address(call: call, family: family, host: host, port: port))
            }
        }
    }

    /// Every address that is not loopback, the ECM subnet (192.168.42.0/24), a Unix socket or netlink.
    var outsiders: [Address] { addresses.filter { !Self.isAllowed($0) } }

    static func isAllowed(_ address: Address) -> Bool {
        switch address.family {
        case "AF_UNIX", "AF_NETLINK", "AF_UNSPEC": return true
        case "AF_INET": return isLoopbackOrECM(v4: address.host)
        case "AF_INET6":
            if address.host == "::1" { return true }
            if address.host.hasPrefix("::ffff:") { return isLoopbackOrECM(v4: String(address.host.dropFirst(7))) }
            return false
        default: return false
        }
    }

    private static func isLoopbackOrECM(v4 host: String) -> Bool {
        let octets = host.split(separator: ".").compactMap { UInt8($0) }
        guard octets.count == 4 else { return false }
        return octets[0] == 127 || (octets[0] == 192 && octets[1] == 168 && octets[2] == 42)
    }

    private static let traced = ["connect", "bind", "sendto", "sendmsg", "sendmmsg"]

    /// The traced call a line shows (`PID name(` or `<... name resumed>`), if any.
    private static func tracedCall(in line: String) -> String? {
        for name in traced where line.contains(" \(name)(") || line.hasPrefix("\(name)(") {
            return name
        }
        return nil
    }

    /// `"…"` segments replaced by `"#N"`, and what each was.
    private static func setAsideStrings(_ line: String) -> (String, [Int: String]) {
        var skeleton = ""
        var strings: [Int: String] = [:]
        var iterator = line.makeIterator()
        while let character = iterator.next() {
            guard character == "\"" else {
                skeleton.append(character)
                continue
            }
            var content = ""
            while let next = iterator.next(), next != "\"" {
                if next == "\\", let escaped = iterator.next() {
                    content.append("\\")
                    content.append(escaped)
                } else {
                    content.append(next)
                }
            }
            skeleton += "\"#\(strings.count)\""
            strings[strings.count] = content
        }
        return (skeleton, strings)
    }

    /// What follows `prefix` up to the next `)`, `,` or end (quotes removed, `#` of a set-aside string kept).
    private static func argument(of prefix: String, in structure: Substring) -> String? {
        guard let range = structure.range(of: prefix) else { return nil }
        let value = structure[range.upperBound...].prefix { $0 != ")" && $0 != "," }
        return value.replacingQuotes()
    }

    /// `inet_pton(AF_INET6, "#N", &sin6_addr)`.
    private static func inet6(in structure: Substring) -> String? {
        guard let range = structure.range(of: "inet_pton(AF_INET6, ") else { return nil }
        return structure[range.upperBound...].prefix { $0 != "," && $0 != ")" }.replacingQuotes()
    }
}

extension Substring {
    /// `"#3"` → `3`; anything else unchanged.
    fileprivate func replacingQuotes() -> String {
        let text = String(self).trimmingCharacters(in: [" "])
        guard text.hasPrefix("\"#"), text.hasSuffix("\"") else { return text }
        return String(text.dropFirst(2).dropLast())
    }
}
