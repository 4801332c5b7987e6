import Foundation
import HTTPClient
import HTTPClientCore
import Testing

/// The board on a socket the service manager holds (systemd's socket activation, here through
/// `systemd-socket-activate`, which binds, waits for the first connection and then runs the board with the
/// listening socket as descriptor 3). The board must take that socket rather than bind its own: binding would
/// fail (the address is taken), and the connection that woke it, queued before it ran, must be served. On loopback.
@Suite(.serialized) struct SocketActivationTests {
    static let activator = "/usr/bin/systemd-socket-activate"
    static var available: Bool { FileManager.default.isExecutableFile(atPath: activator) }

    @Test(.enabled(if: available, "needs systemd-socket-activate (package systemd)"))
    func theBoardServesOnTheSocketItWasGiven() throws {
        let board = try BoardProcess()
        let binary = try #require(Products.path("aiden-board"))
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Self.activator)
        process.arguments = ["-l", "127.0.0.1:\(board.port)", binary, "--config", board.configPath]
        let log = try FileHandle(forWritingTo: URL(fileURLWithPath: board.logPath).creatingFile())
        process.standardOutput = log
        process.standardError = log
        try process.run()
        defer {
            kill(process.processIdentifier, SIGTERM)
            process.waitUntilExit()
        }
        // Listening before the board runs: this request waits in the socket's queue, and starts the board.
        var answer: String?
        for _ in 0..<50 where answer == nil {
            answer = try? board.http("/status").text
            if answer == nil { usleep(100_000) }
        }
        #expect(answer?.contains(#""instance_id""#) == true, "\(board.log)")
        #expect(
            board.log.contains("127.0.0.1:\(board.port): the socket the service manager holds"), "\(board.log)")
        #expect(try board.agent("GET", "/v1/status").status == 200)
    }

    /// A socket the board's configuration does not name is closed, and the log says how to fix it; the board
    /// binds what `[http] listen` names itself.
    @Test(.enabled(if: available, "needs systemd-socket-activate (package systemd)"))
    func aSocketTheConfigurationDoesNotNameIsClosed() throws {
        let board = try BoardProcess()
        let other = try freeLoopbackPort()
        let binary = try #require(Products.path("aiden-board"))
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Self.activator)
        process.arguments = ["-l", "127.0.0.1:\(other)", binary, "--config", board.configPath]
        let log = try FileHandle(forWritingTo: URL(fileURLWithPath: board.logPath).creatingFile())
        process.standardOutput = log
        process.standardError = log
        try process.run()
        defer {
            kill(process.processIdentifier, SIGTERM)
            process.waitUntilExit()
        }
        // The activator runs the board at the first connection on the passed socket, which the board then closes
        // (this request gets no answer). Its own listener comes up in the meantime.
        let trigger = HTTPClientRequest(
            url: "http://127.0.0.1:\(other)/status",
            timeout: .init(connectMilliseconds: 1_000, totalMilliseconds: 2_000))
        var served = false
        for _ in 0..<50 where !served {
            _ = try? HTTPClient().perform(trigger)
            served = (try? board.http("/status").status) == 200
            if !served { usleep(100_000) }
        }
        #expect(served, "\(board.log)")
        #expect(
            board.log.contains(
                "socket activation: the service manager passed tcp(127.0.0.1:\(other)), which [http] listen does not "
                    + "name; closed"), "\(board.log)")
    }
}

extension URL {
    /// The file at this URL, made empty if it does not exist.
    fileprivate func creatingFile() -> URL {
        if !FileManager.default.fileExists(atPath: path) {
            _ = FileManager.default.createFile(atPath: path, contents: nil)
        }
        return self
    }
}
