import Foundation
import NetworkAddress
import Platform
import WakeProtocol

/// One aiden-phone process with `--json`, its stdout read line by line as it comes. Its Wake
/// receiver (UDP) and the board URL are on loopback; its state directory survives `stop()` so a
/// restart finds the alert record. TerminalCardTests runs the same configuration in tmux instead.
final class PhoneProcess {
    let scratch: Scratch
    let wakePort: UInt16
    let configPath: String
    var stateDirectory: String { scratch.path + "/phone-state" }
    var logPath: String { scratch.path + "/phone.log" }
    var wakeTarget: String { "127.0.0.1:\(wakePort)" }
    private(set) var process: Process?
    private let lines = Mutexed<[String]>([])
    private var reader: DispatchGroup?

    /// `phoneID` nil lets the phone generate (and persist) its id.
    init(boardURL: String, phoneID: String? = "it-phone", wakePort: UInt16? = nil, logLevel: String = "debug") throws {
        scratch = try Scratch("aiden-phone")
        self.wakePort = try wakePort ?? freeLoopbackPort()
        configPath = scratch.path + "/phone.toml"
        let config = """
            # written by PhoneProcess for one test
            [board]
            url = "\(boardURL)"
            [wake]
            transport = "loopback"
            loopback_listen = "127.0.0.1:\(self.wakePort)"
            [phone]
            id = "\(phoneID ?? "")"
            [state]
            directory = "\(stateDirectory)"
            [log]
            level = "\(logLevel)"
            """
        try config.write(toFile: configPath, atomically: true, encoding: .utf8)
    }

    deinit {
        if let process, process.isRunning { kill(process.processIdentifier, SIGKILL); process.waitUntilExit() }
    }

    /// Starts aiden-phone (the line buffer starts empty) and waits until it has shown its first
    /// answer from the board (or a problem): a card that is not the initial "waiting" one.
    /// `standardPlaces`: no `--config`, so it looks where it would by itself (`PhonePaths`);
    /// `launcher` runs it through another program (`setpriv` to drop root).
    func start(environment: [String: String] = [:], standardPlaces: Bool = false, launcher: [String] = []) throws {
        guard let binary = Products.path("aiden-phone") else { throw IntegrationError("aiden-phone not built") }
        lines.set([])
        let process = Process()
        let command = launcher + [binary] + (standardPlaces ? [] : ["--config", configPath]) + ["--json"]
        process.executableURL = URL(fileURLWithPath: command[0])
        process.arguments = Array(command.dropFirst())
        process.environment = ["PATH": "/usr/bin:/bin"].merging(environment) { $1 }
        if !FileManager.default.fileExists(atPath: logPath) {
            _ = FileManager.default.createFile(atPath: logPath, contents: nil)
        }
        let log = try FileHandle(forWritingTo: URL(fileURLWithPath: logPath))
        log.seekToEndOfFile()
        process.standardError = log
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        self.process = process
        let group = DispatchGroup()
        let sink = lines
        LineReader.start(output, group: group) { line in
            sink.update { $0.append(String(decoding: line, as: UTF8.self)) }
        }
        reader = group
        guard
            waitFor(
                timeoutSeconds: 20,
                { events in
                    events.contains {
                        $0["event"] as? String == "card"
                            && ($0["state"] as? String != "disconnected"
                                || $0["problem"] != nil)
                    }
                })
        else {
            throw IntegrationError("aiden-phone showed no answer: \(self.log)\n\(rawLines.joined(separator: "\n"))")
        }
    }

    var log: String { (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "" }
    var rawLines: [String] { lines.get() }
    var isRunning: Bool { process?.isRunning ?? false }

    /// Every line parsed; a line that is not a JSON object is kept as `["unparsed": line]`.
    var events: [[String: Any]] {
        rawLines.map { line in
            (try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]) ?? ["unparsed": line]
        }
    }

    func events(_ kind: String) -> [[String: Any]] { events.filter { $0["event"] as? String == kind } }
    var cards: [[String: Any]] { events("card") }
    var lastCard: [String: Any]? { cards.last }
    var alerts: [String] {
        events("alert").map { "\($0["transition"] as? String ?? "?") \($0["request_id"] as? String ?? "-")" }
    }
    func alertCount(_ transition: String) -> Int {
        events("alert").filter { $0["transition"] as? String == transition }.count
    }

    /// Waits (bounded) until `condition` holds on the events seen so far.
    @discardableResult
    func waitFor(timeoutSeconds: Double = 15, _ condition: ([[String: Any]]) -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(timeoutSeconds)
        while Date() < deadline {
            if condition(events) { return true }
            if let process, !process.isRunning { return condition(events) }
            usleep(10_000)
        }
        return condition(events)
    }

    /// Waits until the last card satisfies `condition`.
    @discardableResult
    func waitForCard(timeoutSeconds: Double = 15, _ condition: @escaping ([String: Any]) -> Bool) -> Bool {
        waitFor(timeoutSeconds: timeoutSeconds) { events in
            events.last { $0["event"] as? String == "card" }.map(condition) ?? false
        }
    }

    /// `aiden-phone status` (the program at `binary`, in `environment`) until it prints `line` or `timeoutSeconds`
    /// pass; the last answer. The bar's line follows the card printed on stdout, not at once: the surfaces are
    /// given the cards once the fetch that changed them has ended (its events read too), so a test that saw a
    /// card asks for the line until it catches up.
    func barLine(
        _ line: String, binary: String, environment: [String: String], timeoutSeconds: Double = 5
    ) throws -> CommandResult {
        let deadline = Date().addingTimeInterval(timeoutSeconds)
        while true {
            let answer = try runCommand(binary, ["status"], environment: environment, timeoutSeconds: 10)
            if answer.output == line + "\n" || Date() >= deadline { return answer }
            usleep(20_000)
        }
    }

    /// Sends a signal, waits for the process to end and its output to be read; returns the exit status.
    @discardableResult
    func stop(signal number: Int32 = SIGTERM) -> Int32 {
        guard let process else { return -1 }
        kill(process.processIdentifier, number)
        let deadline = Date().addingTimeInterval(15)
        while process.isRunning && Date() < deadline { usleep(5_000) }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
        _ = reader?.wait(timeout: .now() + 5)
        self.process = nil
        return process.terminationReason == .uncaughtSignal ? -process.terminationStatus : process.terminationStatus
    }

    /// Sends raw datagrams to the phone's Wake receiver.
    func sendDatagrams(_ datagrams: [[UInt8]]) throws {
        let target = try SocketEndpoint(wakeTarget)
        let socket = try UDPDatagramSocket(sendingTo: target)
        for bytes in datagrams { _ = socket.send(bytes, to: target) }
    }
}
