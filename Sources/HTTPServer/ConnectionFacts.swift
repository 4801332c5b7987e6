import BoardAPI

#if canImport(Glibc)
import Glibc
#endif

/// What the kernel says about one accepted connection, read once when it opens.
enum ConnectionFacts {
    /// The name of the interface the connection's first packet (its SYN) came in on, as Linux records it for an
    /// accepted TCP socket whose listener asked for packet info (`ListeningSocket.tcp` sets `IP_PKTINFO` /
    /// `IPV6_RECVPKTINFO`): `IP_PKTOPTIONS` answers with an `in_pktinfo` (`IPV6_2292PKTOPTIONS`, an
    /// `in6_pktinfo`, for IPv6 and v4-mapped peers on a dual-stack listener). Read by index each time, so an
    /// interface that was removed and made again (the gadget taken down and up) is still known by its name.
    static func arrivalInterface(of descriptor: Int32) -> String? {
        guard
            let index = arrivalIndex(descriptor, level: Int32(IPPROTO_IP), option: 9)  // IP_PKTOPTIONS
                ?? arrivalIndex(descriptor, level: Int32(IPPROTO_IPV6), option: 6)  // IPV6_2292PKTOPTIONS
        else { return nil }
        var name = [CChar](repeating: 0, count: Int(IF_NAMESIZE))
        guard if_indextoname(UInt32(index), &name) != nil else { return nil }
        return String(decoding: name.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Whether the connection's first request line and headers are in its socket buffer, unread: a blank line within
    /// the first 4 KiB, looked at without taking it (`MSG_PEEK`). The phone client writes its request whole as soon
    /// as it connects; a connection that only holds a slot says nothing or trickles.
    static func requestIn(_ descriptor: Int32) -> Bool {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 4096) { buffer in
            let count = recv(descriptor, buffer.baseAddress, buffer.count, Int32(MSG_PEEK | MSG_DONTWAIT))
            guard count >= 4 else { return false }
            return (3..<count).contains { end in
                buffer[end - 3] == 13 && buffer[end - 2] == 10 && buffer[end - 1] == 13 && buffer[end] == 10
            }
        }
    }

    /// The peer process of a Unix socket connection (SO_PEERCRED); nil when the kernel does not say.
    static func credentials(of descriptor: Int32) -> HTTPRequest.Credentials? {
        // struct ucred { pid_t pid; uid_t uid; gid_t gid; } (Glibc hides it without _GNU_SOURCE).
        var peer: (pid: Int32, uid: UInt32, gid: UInt32) = (0, 0, 0)
        var length = socklen_t(MemoryLayout.size(ofValue: peer))
        guard getsockopt(descriptor, SOL_SOCKET, SO_PEERCRED, &peer, &length) == 0,
            length == socklen_t(MemoryLayout.size(ofValue: peer))
        else { return nil }
        return HTTPRequest.Credentials(uid: peer.uid, pid: peer.pid)
    }

    /// Walks the control messages getsockopt returned for the packet-info one: (SOL_IP, IP_PKTINFO) holds
    /// `ipi_ifindex` first; (SOL_IPV6, IPV6_PKTINFO) holds it after the 16-byte address.
    private static func arrivalIndex(_ descriptor: Int32, level: Int32, option: Int32) -> Int32? {
        var buffer = [UInt8](repeating: 0, count: 256)
        var length = socklen_t(buffer.count)
        guard getsockopt(descriptor, level, option, &buffer, &length) == 0 else { return nil }
        let sizeField = MemoryLayout<Int>.size  // cmsg_len is a size_t
        let header = (sizeField + 8 + 7) & ~7
        var offset = 0
        return buffer.withUnsafeBytes { raw -> Int32? in
            while offset + header <= Int(length) {
                let messageLength = raw.loadUnaligned(fromByteOffset: offset, as: Int.self)
                let messageLevel = raw.loadUnaligned(fromByteOffset: offset + sizeField, as: Int32.self)
                let messageType = raw.loadUnaligned(fromByteOffset: offset + sizeField + 4, as: Int32.self)
                guard messageLength >= header, offset + messageLength <= Int(length) else { return nil }
                let data = offset + header
                // IP_PKTINFO (8), then IPV6_PKTINFO (50).
                if messageLevel == Int32(IPPROTO_IP), messageType == 8, messageLength >= header + 4 {
                    return raw.loadUnaligned(fromByteOffset: data, as: Int32.self)
                }
                if messageLevel == Int32(IPPROTO_IPV6), messageType == 50, messageLength >= header + 20 {
                    return raw.loadUnaligned(fromByteOffset: data + 16, as: Int32.self)
                }
                offset += (messageLength + 7) & ~7
            }
            return nil
        }
    }
}
