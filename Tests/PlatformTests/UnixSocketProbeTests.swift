import Glibc
import Testing

@testable import Platform

/// The probe on real files and sockets in /tmp: each thing a doctor must tell apart.
@Suite struct UnixSocketProbeTests {
    let base = "/tmp/aiden-probe-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"

    /// A Unix stream socket bound at `path`; listening unless `listening` is false (then it is closed at once,
    /// leaving the stale socket file a crashed daemon leaves).
    func bindSocket(at path: String, listening: Bool) throws -> Int32 {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        let address = try #require(UnixSocketAddress(path: path))
        try #require(address.withSockaddr { bind(fd, $0, $1) } == 0)
        if listening {
            try #require(listen(fd, 4) == 0)
        } else {
            close(fd)
        }
        return fd
    }

    @Test func nothingAtThePathIsAbsent() {
        #expect(UnixSocketProbe.probe(base + ".none") == .absent)
    }

    @Test func aPlainFileIsNotASocket() throws {
        let path = base + ".file"
        let fd = open(path, O_WRONLY | O_CREAT, 0o600)
        try #require(fd >= 0)
        close(fd)
        defer { unlink(path) }
        #expect(UnixSocketProbe.probe(path) == .notASocket)
    }

    @Test func aListeningSocketAnswers() throws {
        let path = base + ".sock"
        let fd = try bindSocket(at: path, listening: true)
        defer {
            close(fd)
            unlink(path)
        }
        #expect(UnixSocketProbe.probe(path) == .answers)
    }

    @Test func aSocketNobodyListensOnIsRefusedWithTheSystemsReason() throws {
        let path = base + ".stale"
        _ = try bindSocket(at: path, listening: false)
        defer { unlink(path) }
        let probe = UnixSocketProbe.probe(path)
        guard case let .refused(error) = probe else {
            Issue.record("expected refused, got \(probe)")
            return
        }
        #expect(error.errno == ECONNREFUSED)
        #expect(error.reason == "Connection refused")
        #expect(!error.isPermissionDenied)
        #expect(error.description == "connect \(path): Connection refused")
    }

    @Test func aPathTooLongForTheKernelIsRefusedNotCut() {
        let path = "/tmp/" + String(repeating: "s", count: 200)
        #expect(UnixSocketAddress(path: path) == nil)
        #expect(UnixSocketAddress(path: "") == nil)
        #expect(UnixSocketAddress(path: "/tmp/" + String(repeating: "s", count: 102)) != nil)
        // Nothing there at all, so it is absent before its length matters.
        #expect(UnixSocketProbe.probe(path) == .absent)
    }

    @Test func permissionDeniedIsToldApart() {
        let error = SocketError(operation: "connect", address: "/run/aiden/agent.sock", errno: EACCES)
        #expect(error.isPermissionDenied)
        #expect(error.reason == "Permission denied")
    }
}
