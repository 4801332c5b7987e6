import BoardAPI
import Foundation
import LiveActivity
import NetworkAddress
import Platform
import Synchronization
import TestSupport
import WakeProtocol
import WireFormat

@testable import BoardService

/// Records every Wake at the monotonic time it was sent.
final class RecordingSink: WakeSink {
    private let clock: ManualRuntime
    let transportName: String
    /// Whether a phone is subscribed, as `bluetoothFacts()` says; `subscribe` changes it and tells the observer.
    private let subscribed = Atomic<Bool>(false)
    private let observer = Mutex<(@Sendable () -> Void)?>(nil)
    private let recorded = Mutex<[(at: Duration, envelope: WakeEnvelope)]>([])
    /// The runtime's armed timers as each Wake went out.
    private let armedAtSend = Mutex<[[Duration]]>([])
    let failing = Atomic<Bool>(false)

    init(clock: ManualRuntime, transportName: String = "loopback") {
        self.clock = clock
        self.transportName = transportName
    }

    func observeFacts(_ changed: @escaping @Sendable () -> Void) { observer.withLock { $0 = changed } }

    /// A phone subscribes (or unsubscribes), as bluetoothd would tell a peripheral, from another thread.
    func subscribe(_ isSubscribed: Bool) {
        subscribed.store(isSubscribed, ordering: .relaxed)
        observer.withLock { $0 }?()
    }

    func openPairingWindow(
        for duration: Duration, forgetting phone: String?
    ) -> PairingOutcome {
        .failed("no pairing in this test")
    }

    func send(_ envelope: WakeEnvelope) -> Result<Void, WakeSinkError> {
        if failing.load(ordering: .relaxed) { return .failure(WakeSinkError("radio off")) }
        recorded.withLock { $0.append((clock.monotonicNow(), envelope)) }
        armedAtSend.withLock { $0.append(clock.pendingTimers) }
        return .success(())
    }

    func bluetoothFacts() -> BluetoothFacts {
        BluetoothFacts(adapter: "hci0", wakeSubscriber: subscribed.load(ordering: .relaxed))
    }

    var wakes: [(at: Duration, envelope: WakeEnvelope)] { recorded.withLock { $0 } }
    var envelopes: [WakeEnvelope] { wakes.map(\.envelope) }
    var timersArmedAtEachWake: [[Duration]] { armedAtSend.withLock { $0 } }
}

/// A board engine over an in-memory file system, a manual runtime, and a recording sink.
struct EngineFixture {
    let runtime: ManualRuntime
    let sink: RecordingSink
    let fileSystem: InMemoryFileSystem
    let directory: BoardStateDirectory
    let engine: BoardEngine
    let logs: LogCapture
    let loaded: BoardStateDirectory.Loaded

    init(
        fileSystem: InMemoryFileSystem = InMemoryFileSystem(), runtime: ManualRuntime = ManualRuntime(),
        blockSize: UInt64 = 1024, retention: Duration = .seconds(600), seed: UInt64 = 1,
        transport: String = "loopback", boardAddresses: @escaping @Sendable () -> [IPAddress]? = { [] }
    ) throws {
        self.runtime = runtime
        self.fileSystem = fileSystem
        sink = RecordingSink(clock: runtime, transportName: transport)
        directory = BoardStateDirectory(path: "/var/lib/aiden-board", fileSystem: fileSystem)
        var random = SplitMix64(seed: seed)
        loaded = try directory.load(now: runtime.wallNow(), using: &random)
        var settings = BoardEngine.Settings(
            version: "test", liveActivityEnabled: true, retention: retention,
            coalesceWindow: .milliseconds(750))
        settings.session.sequenceBlockSize = blockSize
        let (logger, capture) = Logger.capturing(component: "engine")
        logs = capture
        engine = BoardEngine(
            settings: settings, loaded: loaded, directory: directory,
            policy: AccessPolicy(
                allowedSubnets: [try Subnet("192.168.42.0/24")],
                listenAddresses: [IPAddress(v4: 192, 168, 42, 1)]),
            sink: sink, runtime: runtime, logger: logger, boardAddresses: boardAddresses)
    }

    /// The same state directory after power loss: a new engine on what survived.
    func restartedAfterCrash(seed: UInt64 = 2) throws -> EngineFixture {
        fileSystem.crash()
        return try EngineFixture(fileSystem: fileSystem, runtime: runtime, seed: seed)
    }

    @discardableResult
    func agent(_ method: String, _ path: String, _ body: String = "", headers: [String: String] = [:]) -> HTTPResponse {
        engine.handleAgent(HTTPRequest(method: method, path: path, headers: headers, body: Array(body.utf8)))
    }

    func phone(
        _ method: String, _ path: String, query: [(name: String, value: String)] = [],
        headers: [String: String] = [:], peer: IPAddress = IPAddress(v4: 192, 168, 42, 2), body: String = ""
    ) -> HTTPResponse {
        engine.handlePhone(
            HTTPRequest(
                method: method, path: path, query: query,
                headers: headers.merging(["host": "192.168.42.1:8080"]) { $1 }, body: Array(body.utf8), peer: .ip(peer),
                localAddress: IPAddress(v4: 192, 168, 42, 1))
        ).response()
    }

    /// Starts a task and returns its id.
    func start(_ title: String = "T", phone: String = "") -> String {
        let response = agent("POST", "/v1/tasks", #"{"task_title":"\#(title)","phone_id":"\#(phone)"}"#)
        let text = String(decoding: response.body, as: UTF8.self)
        guard let range = text.range(of: #""request_id":""#) else { return "<\(response.status) \(text)>" }
        return String(text[range.upperBound...].prefix { $0 != "\"" })
    }

    func storedTasks() throws -> TaskStore? {
        guard fileSystem.fileExists(at: directory.path + "/tasks.json") else { return nil }
        let bytes = try fileSystem.readFile(at: directory.path + "/tasks.json")
        return try JSONDecoder().decode(TaskStore.self, from: Data(bytes))
    }
}

extension HTTPResponse {
    var text: String { String(decoding: body, as: UTF8.self) }
}
