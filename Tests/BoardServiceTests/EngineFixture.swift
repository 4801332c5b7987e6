import BoardAPI
import Foundation
import LiveActivity
import NetworkAddress
import Platform
import Synchronization
import TestSupport
import WakeProtocol

@testable import BoardService

/// A hand-driven clock: tests move time, nothing sleeps.
final class ManualClock: BoardClock {
    private let state: Mutex<(wall: Date, monotonic: Duration)>

    init(wall: Date = Date(timeIntervalSince1970: 1_780_000_000)) {
        state = Mutex((wall, .zero))
    }

    func wallNow() -> Date { state.withLock { $0.wall } }
    func monotonicNow() -> Duration { state.withLock { $0.monotonic } }

    func advance(by step: Duration) {
        state.withLock { state in
            state.monotonic += step
            state.wall = state.wall.addingTimeInterval(
                Double(step.components.seconds)
                    + Double(step.components.attoseconds) / 1e18)
        }
    }
}

/// Timers that fire only when the test advances the clock past their due time.
final class ManualTimers: TimerScheduler {
    private let clock: ManualClock
    private let pending = Mutex<[(due: Duration, work: @Sendable () -> Void)]>([])

    init(clock: ManualClock) { self.clock = clock }

    func schedule(after delay: Duration, _ work: @escaping @Sendable () -> Void) {
        let due = clock.monotonicNow() + max(delay, .zero)
        pending.withLock { $0.append((due, work)) }
    }

    var count: Int { pending.withLock { $0.count } }

    /// Moves time forward in small steps, running each timer when its time comes.
    func advance(by total: Duration, step: Duration = .milliseconds(10)) {
        var elapsed = Duration.zero
        while elapsed < total {
            let slice = min(step, total - elapsed)
            clock.advance(by: slice)
            elapsed += slice
            runDue()
        }
    }

    func runDue() {
        while true {
            let now = clock.monotonicNow()
            let due = pending.withLock { list -> (@Sendable () -> Void)? in
                guard let index = list.firstIndex(where: { $0.due <= now }) else { return nil }
                return list.remove(at: index).work
            }
            guard let due else { return }
            due()
        }
    }
}

/// Records every Wake at the monotonic time it was sent.
final class RecordingSink: WakeSink {
    private let clock: ManualClock
    private let recorded = Mutex<[(at: Duration, envelope: WakeEnvelope)]>([])
    let failing = Atomic<Bool>(false)

    init(clock: ManualClock) { self.clock = clock }

    var transportName: String { "loopback" }

    func send(_ envelope: WakeEnvelope) -> Result<Void, WakeSinkError> {
        if failing.load(ordering: .relaxed) { return .failure(WakeSinkError("radio off")) }
        recorded.withLock { $0.append((clock.monotonicNow(), envelope)) }
        return .success(())
    }

    func bluetoothFacts() -> BluetoothFacts { BluetoothFacts(adapter: "hci0") }

    var wakes: [(at: Duration, envelope: WakeEnvelope)] { recorded.withLock { $0 } }
    var envelopes: [WakeEnvelope] { wakes.map(\.envelope) }
}

/// Deterministic randomness for epochs and ids.
struct SeededGenerator: RandomNumberGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// A board engine over an in-memory file system, manual clock and timers, recording sink.
struct EngineFixture {
    let clock: ManualClock
    let timers: ManualTimers
    let sink: RecordingSink
    let fileSystem: InMemoryFileSystem
    let directory: BoardStateDirectory
    let engine: BoardEngine
    let logs: LogCapture
    let loaded: BoardStateDirectory.Loaded

    init(
        fileSystem: InMemoryFileSystem = InMemoryFileSystem(), clock: ManualClock = ManualClock(),
        blockSize: UInt64 = 1024, retention: Duration = .seconds(600), seed: UInt64 = 1
    ) throws {
        self.clock = clock
        self.fileSystem = fileSystem
        timers = ManualTimers(clock: clock)
        sink = RecordingSink(clock: clock)
        directory = BoardStateDirectory(path: "/var/lib/aiden-board", fileSystem: fileSystem)
        var random = SeededGenerator(state: seed)
        loaded = try directory.load(now: clock.wallNow(), using: &random)
        var settings = BoardEngine.Settings(
            version: "test", liveActivityEnabled: true, retention: retention,
            coalesceWindow: .milliseconds(750))
        settings.sequenceBlockSize = blockSize
        let (logger, capture) = Logger.capturing(component: "engine")
        logs = capture
        engine = BoardEngine(
            settings: settings, loaded: loaded, directory: directory,
            policy: AccessPolicy(
                allowedSubnets: [try Subnet("192.168.42.0/24")],
                listenAddresses: [IPAddress(v4: 192, 168, 42, 1)]),
            sink: sink, clock: clock, timers: timers, logger: logger)
    }

    /// The same state directory after power loss: a new engine on what survived.
    func restartedAfterCrash(seed: UInt64 = 2) throws -> EngineFixture {
        fileSystem.crash()
        return try EngineFixture(fileSystem: fileSystem, clock: clock, seed: seed)
    }

    @discardableResult
    func agent(_ method: String, _ path: String, _ body: String = "", headers: [String: String] = [:]) -> HTTPResponse {
        engine.handleAgent(HTTPRequest(method: method, path: path, headers: headers, body: Array(body.utf8)))
    }

    func phone(
        _ method: String, _ path: String, query: [(name: String, value: String)] = [],
        peer: IPAddress = IPAddress(v4: 192, 168, 42, 2)
    ) -> HTTPResponse {
        engine.handlePhone(
            HTTPRequest(
                method: method, path: path, query: query,
                headers: ["host": "192.168.42.1:8080"], peer: .ip(peer),
                localAddress: IPAddress(v4: 192, 168, 42, 1)))
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
