import Foundation
import HTTPClient
import HTTPClientCore
import HTTPServer
import NetworkAddress
import Platform
import WakeProtocol

/// Where `swift build` put the executables: next to the test bundle.
enum Products {
    static func path(_ name: String) -> String? {
        let candidates = [
            URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()
                .appendingPathComponent(name).path,
            URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent(name)
                .path,
            URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
                .deletingLastPathComponent().appendingPathComponent(".build/debug/\(name)").path,
        ]
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0) }
    }
}

struct IntegrationError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// A scratch directory removed when the test is done.
final class Scratch {
    let path: String

    init(_ prefix: String = "aiden-it") throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent(
            "\(prefix)-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        path = url.path
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }
}

/// A free port on loopback for the board (TCP) or a Wake receiver (UDP).
///
/// Chosen below the kernel's ephemeral range (32768–60999), and free for both TCP and UDP: a port the
/// kernel hands out (bind to 0) can be taken a moment later as the local port of any outgoing
/// connection (curl, aidenctl, the phone), and the daemon's bind then fails.
func freeLoopbackPort() throws -> UInt16 {
    let loopback = IPAddress(v4: 127, 0, 0, 1)
    for _ in 0..<500 {
        let port = UInt16.random(in: 20_000..<32_000)
        guard let tcp = try? ListeningSocket.tcp(SocketEndpoint(address: loopback, port: port)) else { continue }
        close(tcp.descriptor)
        let udp = try? UDPDatagramSocket(receivingOn: SocketEndpoint(address: loopback, port: port))
        guard udp != nil else { continue }
        return port
    }
    throw IntegrationError("no free port below the ephemeral range")
}

/// The result of running a command to completion.
struct CommandResult {
    var status: Int32
    var output: String
    var error: String
    var lastLine: String { output.split(separator: "\n").last.map(String.init) ?? "" }
}

/// Runs a program to completion with a bounded time; kills it if it hangs.
func runCommand(
    _ executable: String, _ arguments: [String], environment: [String: String] = [:],
    timeoutSeconds: Double = 30
) throws -> CommandResult {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    process.environment = ["PATH": "/usr/sbin:/usr/bin:/sbin:/bin"].merging(environment) { $1 }
    let output = Pipe()
    let error = Pipe()
    process.standardOutput = output
    process.standardError = error
    try process.run()
    let deadline = Date().addingTimeInterval(timeoutSeconds)
    let outData = Mutexed(Data())
    let errData = Mutexed(Data())
    let readers = DispatchGroup()
    for (pipe, sink) in [(output, outData), (error, errData)] {
        DispatchQueue.global().async(group: readers) { sink.set(pipe.fileHandleForReading.readDataToEndOfFile()) }
    }
    while process.isRunning && Date() < deadline { usleep(5_000) }
    if process.isRunning {
        process.terminate()
        kill(process.processIdentifier, SIGKILL)
    }
    process.waitUntilExit()
    readers.wait()
    return CommandResult(
        status: process.terminationStatus, output: String(decoding: outData.get(), as: UTF8.self),
        error: String(decoding: errData.get(), as: UTF8.self))
}

/// A tiny lock-protected box for test plumbing.
final class Mutexed<Value>: @unchecked Sendable {
    private var value: Value
    private let lock = NSLock()
    init(_ value: Value) { self.value = value }
    func get() -> Value { lock.withLock { value } }
    func set(_ newValue: Value) { lock.withLock { value = newValue } }
    func update(_ change: (inout Value) -> Void) { lock.withLock { change(&value) } }
}

/// One aiden-board process with its own configuration, state directory, agent socket, HTTP port
/// and a UDP receiver for its Wakes. Everything on loopback or inside the scratch directory.
final class BoardProcess {
    let scratch: Scratch
    let port: UInt16
    let wakeReceiver: UDPDatagramSocket
    let configPath: String
    var socketPath: String { scratch.path + "/agent.sock" }
    let stateDirectory: String
    private(set) var process: Process?
    private var logHandle: FileHandle?
    var logPath: String { scratch.path + "/board.log" }
    private let wakes = Mutexed<[WakeEnvelope]>([])
    private let receiving = Mutexed(true)

    /// `listen` defaults to this process's loopback port; `extra` is appended to the TOML file.
    /// `wakeTarget` sends the board's Wakes elsewhere (an aiden-phone's `loopback_listen`) instead of
    /// to `wakeReceiver`. `interface` is `[http] interface` (the default, `aiden0`, when nil).
    /// `stateDirectory` defaults to one of its own in the scratch directory.
    init(
        listen: [String]? = nil, interface: String? = nil, coalesceMilliseconds: Int = 750, extra: String = "",
        netnsScratch: Scratch? = nil, wakeTarget: String? = nil, stateDirectory: String? = nil
    ) throws {
        let scratch = try netnsScratch ?? Scratch("aiden-board")
        self.scratch = scratch
        self.stateDirectory = stateDirectory ?? scratch.path + "/state"
        port = try freeLoopbackPort()
        wakeReceiver = try UDPDatagramSocket(receivingOn: try SocketEndpoint("127.0.0.1:0"))
        guard let wakePort = wakeReceiver.localEndpoint?.port else { throw IntegrationError("no wake port") }
        let listenList = (listen ?? ["127.0.0.1:\(port)"]).map { "\"\($0)\"" }.joined(separator: ", ")
        configPath = scratch.path + "/board.toml"
        let config = """
            # written by BoardProcess for one test
            [http]
            listen = [\(listenList)]
            \(interface.map { "interface = \"\($0)\"" } ?? "")
            [wake]
            transport = "loopback"
            loopback_target = "\(wakeTarget ?? "127.0.0.1:\(wakePort)")"
            coalesce_milliseconds = \(coalesceMilliseconds)
            [agent]
            socket = "\(scratch.path)/agent.sock"
            [state]
            directory = "\(self.stateDirectory)"
            [log]
            level = "debug"
            \(extra)
            """
        try config.write(toFile: configPath, atomically: true, encoding: .utf8)
        let receiver = wakeReceiver
        let store = wakes
        let running = receiving
        DispatchQueue.global().async {
            while running.get() {
                guard let datagram = receiver.receive(timeoutMilliseconds: 100) else { continue }
                if let envelope = try? WakeEnvelope(bytes: datagram.bytes), datagram.fullLength == 12 {
                    store.update { $0.append(envelope) }
                }
            }
        }
    }

    deinit {
        if let process, process.isRunning { kill(process.processIdentifier, SIGKILL); process.waitUntilExit() }
        receiving.set(false)
    }

    var receivedWakes: [WakeEnvelope] { wakes.get() }

    /// Starts the board (optionally through a wrapper such as `ip netns exec NS`) and waits until
    /// its agent socket answers /v1/status.
    func start(wrapper: [String] = [], environment: [String: String] = [:]) throws {
        guard let binary = Products.path("aiden-board") else { throw IntegrationError("aiden-board not built") }
        let process = Process()
        let command = wrapper + [binary, "--config", configPath]
        process.executableURL = URL(fileURLWithPath: command[0])
        process.arguments = Array(command.dropFirst())
        if !environment.isEmpty {
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        }
        if !FileManager.default.fileExists(atPath: logPath) {
            _ = FileManager.default.createFile(atPath: logPath, contents: nil)
        }
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: logPath))
        handle.seekToEndOfFile()
        process.standardError = handle
        process.standardOutput = handle
        try process.run()
        self.process = process
        self.logHandle = handle
        let deadline = Date().addingTimeInterval(20)
        while Date() < deadline {
            if !process.isRunning {
                throw IntegrationError("aiden-board exited with \(process.terminationStatus): \(log)")
            }
            if let response = try? agent("GET", "/v1/status"), response.status == 200 { return }
            usleep(20_000)
        }
        throw IntegrationError("aiden-board did not become ready: \(log)")
    }

    var log: String { (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "" }

    /// Sends a signal and waits for the process to end; returns its exit status.
    @discardableResult
    func stop(signal number: Int32 = SIGTERM) -> Int32 {
        guard let process else { return -1 }
        kill(process.processIdentifier, number)
        let deadline = Date().addingTimeInterval(15)
        while process.isRunning && Date() < deadline { usleep(5_000) }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
        self.process = nil
        return process.terminationReason == .uncaughtSignal ? -process.terminationStatus : process.terminationStatus
    }

    /// A request on the agent socket.
    func agent(
        _ method: String, _ path: String, body: String = "", headers: [(String, String)] = []
    )
        throws -> HTTPClientResponse
    {
        try HTTPClient().perform(
            HTTPClientRequest(
                method: method, url: "http://localhost\(path)",
                headers: headers + [("Content-Type", "application/json")],
                body: Array(body.utf8), unixSocketPath: socketPath,
                timeout: .init(connectMilliseconds: 1000, totalMilliseconds: 5000)))
    }

    /// A request on the HTTP (ECM) listener from loopback.
    func http(
        _ path: String, method: String = "GET", body: [UInt8] = [], headers: [(String, String)] = []
    )
        throws -> HTTPClientResponse
    {
        try HTTPClient().perform(
            HTTPClientRequest(
                method: method, url: "http://127.0.0.1:\(port)\(path)", headers: headers, body: body,
                timeout: .init(connectMilliseconds: 1000, totalMilliseconds: 5000)))
    }

    /// Runs the built aidenctl against this board.
    func aidenctl(_ arguments: [String]) throws -> CommandResult {
        guard let binary = Products.path("aidenctl") else { throw IntegrationError("aidenctl not built") }
        return try runCommand(binary, ["--socket", socketPath] + arguments)
    }

    /// Waits until `condition` holds on the received Wakes (a bounded wait, not a timing assertion).
    func waitForWakes(timeoutSeconds: Double = 5, _ condition: ([WakeEnvelope]) -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(timeoutSeconds)
        while Date() < deadline {
            if condition(receivedWakes) { return true }
            usleep(10_000)
        }
        return condition(receivedWakes)
    }
}

/// Parses a JSON object printed by a command.
func jsonObject(_ text: String) -> [String: Any]? {
    (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String: Any]
}

extension HTTPClientResponse {
    var text: String { String(decoding: body, as: UTF8.self) }
    var json: [String: Any]? { (try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any] }
}
