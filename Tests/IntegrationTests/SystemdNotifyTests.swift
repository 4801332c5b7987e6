import Foundation
import Testing

/// The service-manager protocol as systemd drives it: a datagram socket in NOTIFY_SOCKET, a
/// watchdog interval in WATCHDOG_USEC. The test plays systemd.
@Suite(.serialized) struct SystemdNotifyTests {
    /// A bound Unix datagram socket collecting sd_notify messages.
    final class NotifySocket {
        let path: String
        let fd: Int32

        init(path: String) throws {
            self.path = path
            fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue), 0)
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
            guard rc == 0 else { throw IntegrationError("bind \(path): errno \(errno)") }
        }

        deinit { close(fd) }

        /// Messages received within `seconds` (bounded wait), stopping early once `until` holds.
        func messages(within seconds: Double, until: ([String]) -> Bool) -> [String] {
            var received: [String] = []
            let deadline = Date().addingTimeInterval(seconds)
            while Date() < deadline && !until(received) {
                var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
                guard poll(&poller, 1, 50) > 0 else { continue }
                var buffer = [UInt8](repeating: 0, count: 4096)
                let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
                if count > 0 { received.append(String(decoding: buffer[..<count], as: UTF8.self)) }
            }
            return received
        }
    }

    @Test func readyOnlyWhenServingThenWatchdogThenStopping() throws {
        let board = try BoardProcess()
        let notify = try NotifySocket(path: board.scratch.path + "/notify.sock")
        try board.start(environment: ["NOTIFY_SOCKET": notify.path, "WATCHDOG_USEC": "200000"])
        let startup = notify.messages(within: 10) { list in list.filter { $0.contains("WATCHDOG=1") }.count >= 3 }
        let ready = try #require(startup.firstIndex { $0.contains("READY=1") }, "READY=1 was sent: \(startup)")
        #expect(startup[ready].contains("STATUS=serving"))
        #expect(startup.filter { $0.contains("WATCHDOG=1") }.count >= 3, "the watchdog is petted: \(startup)")
        #expect(startup.firstIndex { $0.contains("WATCHDOG=1") }.map { $0 > ready } ?? false)

        board.stop(signal: SIGTERM)
        let shutdown = notify.messages(within: 5) { list in list.contains { $0.contains("STOPPING=1") } }
        #expect(shutdown.contains { $0.contains("STOPPING=1") }, "\(shutdown)")
    }

    @Test func thePhoneSpeaksTheSameProtocol() throws {
        let board = try BoardProcess()
        try board.start()
        defer { board.stop() }
        let phone = try PhoneProcess(boardURL: "http://127.0.0.1:\(board.port)")
        let notify = try NotifySocket(path: phone.scratch.path + "/notify.sock")
        try phone.start(environment: ["NOTIFY_SOCKET": notify.path, "WATCHDOG_USEC": "200000"])
        let startup = notify.messages(within: 10) { list in list.filter { $0.contains("WATCHDOG=1") }.count >= 3 }
        let ready = try #require(startup.firstIndex { $0.contains("READY=1") }, "READY=1 was sent: \(startup)")
        #expect(startup.filter { $0.contains("WATCHDOG=1") }.count >= 3, "the watchdog is petted: \(startup)")
        #expect(startup.firstIndex { $0.contains("WATCHDOG=1") }.map { $0 > ready } ?? false)
        #expect(phone.stop(signal: SIGTERM) == 0)
        let shutdown = notify.messages(within: 5) { list in list.contains { $0.contains("STOPPING=1") } }
        #expect(shutdown.contains { $0.contains("STOPPING=1") }, "\(shutdown)")
    }

    /// A SIGTERM at any moment after launch is never lost: the process always ends, and when it
    /// ran far enough to handle it, it ends cleanly (exit 0), whatever it was doing.
    @Test func sigtermAtAnyMomentStopsTheBoard() throws {
        guard let binary = Products.path("aiden-board") else { throw IntegrationError("aiden-board not built") }
        let board = try BoardProcess()
        for delay in [0, 1_000, 3_000, 10_000, 30_000, 60_000, 100_000, 200_000] {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: binary)
            process.arguments = ["--config", board.configPath]
            process.standardError = FileHandle.nullDevice
            try process.run()
            usleep(useconds_t(delay))
            kill(process.processIdentifier, SIGTERM)
            let deadline = Date().addingTimeInterval(10)
            while process.isRunning && Date() < deadline { usleep(5_000) }
            let hung = process.isRunning
            if hung { kill(process.processIdentifier, SIGKILL) }
            process.waitUntilExit()
            #expect(!hung, "SIGTERM \(delay) µs after launch was lost")
            if process.terminationReason == .exit {
                #expect(process.terminationStatus == 0, "after \(delay) µs: exit \(process.terminationStatus)")
            }
        }
    }

    @Test func withoutNotifySocketNothingIsSentAndTheBoardRuns() throws {
        let board = try BoardProcess()
        try board.start(environment: ["NOTIFY_SOCKET": ""])
        defer { board.stop() }
        #expect(try board.agent("GET", "/v1/status").status == 200)
        #expect(!board.log.contains("watchdog every"))
    }
}
