import BoardAPI
import Foundation
import LiveActivity
import NetworkAddress
import Platform
import Synchronization
import TestSupport
import Testing
import WakeProtocol
import WireFormat

@testable import BoardService

/// The board's one-writer design on the real serial runtime: while the writer is stuck in a slow
/// fsync, the phone is answered at once from the last publication, and the change appears only once
/// it is durable.
@Suite struct PublishedReadTests {
    @Test func phoneReadsDoNotWaitForASlowFsync() throws {
        let gate = GatedFileSystem()
        let engine = try Self.engine(on: gate)
        engine.start()
        #expect(engine.handleAgent(Self.start("Before")).status == 201)

        gate.close()
        let writer = try HeldWrite(Self.start("After"), on: engine, gate: gate)

        // The writer is inside fsync; the phone still gets an answer, and it is the durable state.
        let during = engine.handlePhone(Self.current).response()
        #expect(during.status == 200)
        #expect(String(decoding: during.body, as: UTF8.self).contains(#""task_title":"Before""#))
        #expect(engine.isResponsive(), "a slow fsync is not a hang")
        #expect(writer.status == nil)

        gate.open()
        let deadline = Date().addingTimeInterval(10)
        while writer.status == nil, Date() < deadline { usleep(1_000) }
        #expect(writer.status == 201)
        let after = engine.handlePhone(Self.current).response()
        #expect(String(decoding: after.body, as: UTF8.self).contains(#""task_title":"After""#))
        #expect(after.header("ETag") != during.header("ETag"))
    }

    /// The person's answer is a store change, made by the writer: the engine answers it later, so the listener's
    /// thread gets its reply at once, even while the writer is in a slow fsync, and serves the phone's reads
    /// meanwhile; the answer comes once it is durable.
    @Test func aPhonesAnswerWaitsForTheWriterOffTheListenersThread() throws {
        let gate = GatedFileSystem()
        let engine = try Self.engine(on: gate)
        engine.start()
        let started = engine.handleAgent(
            HTTPRequest(
                method: "POST", path: "/v1/tasks",
                body: Array(#"{"task_title":"Build","request_id":"stop_1","can_stop":true}"#.utf8)))
        #expect(started.status == 201)

        gate.close()
        defer { gate.open() }
        let answered = try LaterAnswer(Self.answer("stop_1"), from: engine)
        try gate.waitUntilBlocked()

        // The writer is in the answer's fsync: the phone's reads are answered, without the unfinished stop.
        let during = engine.handlePhone(Self.current).response()
        #expect(during.status == 200)
        #expect(!String(decoding: during.body, as: UTF8.self).contains(#""answer_id":"a-1""#))
        #expect(answered.response == nil, "not acknowledged before it is durable")

        gate.open()
        let answerDeadline = Date().addingTimeInterval(10)
        while answered.response == nil, Date() < answerDeadline { usleep(1_000) }
        #expect(answered.response?.status == 200)
        let after = engine.handlePhone(Self.current).response()
        #expect(String(decoding: after.body, as: UTF8.self).contains(#""answer_id":"a-1""#), "published once durable")
    }

    /// A pairing request is decided by the peripheral, on a queue of the board's own: while the writer is in a
    /// slow fsync, the listener's thread gets its reply at once, and the answer (what the peripheral decided)
    /// comes without waiting for the writer.
    @Test func aPairingRequestIsAnsweredWhileTheWriterIsInASlowFsync() throws {
        let gate = GatedFileSystem()
        let sink = PairingSink()
        sink.outcome.withLock { $0 = .open(closesIn: .seconds(45)) }
        let engine = try Self.engine(on: gate, sink: sink)
        engine.start()
        #expect(engine.handleAgent(Self.start("Before")).status == 201)

        gate.close()
        defer { gate.open() }
        let writer = try HeldWrite(Self.start("After"), on: engine, gate: gate)
        let answered = try LaterAnswer(Self.pairing, from: engine)

        let answerDeadline = Date().addingTimeInterval(5)
        while answered.response == nil, Date() < answerDeadline { usleep(1_000) }
        let answer = try #require(answered.response, "the pairing answer waited for the writer")
        #expect(answer.status == 200)
        #expect(String(decoding: answer.body, as: UTF8.self).contains(#""seconds":45"#), "what the peripheral decided")
        #expect(sink.asked.withLock { $0 } == [.seconds(60)])
        #expect(writer.status == nil, "the writer was still in its fsync")
        #expect(engine.handlePhone(Self.current).response().status == 200)
    }

    /// An engine on the real serial runtime whose state directory is on `gate`.
    private static func engine(on gate: GatedFileSystem, sink: any WakeSink = NullSink()) throws -> BoardEngine {
        let directory = BoardStateDirectory(path: "/var/lib/aiden-board", fileSystem: gate)
        var random = SystemRandomNumberGenerator()
        let loaded = try directory.load(now: Date(), using: &random)
        let (logger, _) = Logger.capturing(component: "engine")
        return BoardEngine(
            settings: BoardEngine.Settings(
                version: "test", liveActivityEnabled: true, retention: .seconds(600),
                coalesceWindow: .milliseconds(750)),
            loaded: loaded, directory: directory,
            policy: AccessPolicy(
                allowedSubnets: [try Subnet("192.168.42.0/24")],
                listenAddresses: [IPAddress(v4: 192, 168, 42, 1)]),
            sink: sink, runtime: SerialRuntime(label: "test.board"), logger: logger)
    }

    static func answer(_ id: String) -> HTTPRequest {
        HTTPRequest(
            method: "POST", path: "/api/live-activity/tasks/\(id)/answer",
            headers: ["host": "192.168.42.1:8080", "content-type": "application/json"],
            body: Array(#"{"answer":"stop","answer_id":"a-1","phone_id":"phone-1"}"#.utf8),
            peer: .ip(IPAddress(v4: 192, 168, 42, 2)), localAddress: IPAddress(v4: 192, 168, 42, 1))
    }

    static func start(_ title: String) -> HTTPRequest {
        HTTPRequest(method: "POST", path: "/v1/tasks", body: Array(#"{"task_title":"\#(title)"}"#.utf8))
    }

    static let pairing = HTTPRequest(
        method: "POST", path: "/api/bluetooth/pairing/start",
        headers: ["host": "192.168.42.1:8080", "content-type": "application/json"],
        body: Array(#"{"seconds":60}"#.utf8),
        peer: .ip(IPAddress(v4: 192, 168, 42, 2)), localAddress: IPAddress(v4: 192, 168, 42, 1))

    static let current = HTTPRequest(
        method: "GET", path: "/api/live-activity/current", headers: ["host": "192.168.42.1:8080"],
        peer: .ip(IPAddress(v4: 192, 168, 42, 2)), localAddress: IPAddress(v4: 192, 168, 42, 1))
}

/// An agent's write on a thread of its own, held inside its fsync by `gate` when `init` returns; `status` is its
/// answer's once the gate opens and the write is done.
private final class HeldWrite: Sendable {
    private let done = Mutex<Int?>(nil)

    init(_ request: HTTPRequest, on engine: BoardEngine, gate: GatedFileSystem) throws {
        let writer = Thread {
            let status = engine.handleAgent(request).status
            self.done.withLock { $0 = status }
        }
        writer.start()
        try gate.waitUntilBlocked()
    }

    var status: Int? { done.withLock { $0 } }
}

/// A phone request handed to the engine on a thread of its own, as the listener's server loop hands it: the engine
/// must reply at once with `.later`, and `response` is the answer once the engine sends it.
private final class LaterAnswer: Sendable {
    private let answered = Mutex<HTTPResponse?>(nil)

    init(_ request: HTTPRequest, from engine: BoardEngine) throws {
        let replied = Mutex<HTTPReply?>(nil)
        let listener = Thread {
            let reply = engine.handlePhone(request)
            replied.withLock { $0 = reply }
        }
        listener.start()
        let deadline = Date().addingTimeInterval(5)
        while replied.withLock({ $0 }) == nil, Date() < deadline { usleep(1_000) }
        let reply = try #require(replied.withLock { $0 }, "the listener's thread did not get its reply")
        #expect(reply.isLater, "answered later, off the listener's thread")
        if case let .later(start) = reply { start { response in self.answered.withLock { $0 = response } } }
    }

    var response: HTTPResponse? { answered.withLock { $0 } }
}

/// An in-memory file system whose file fsync can be held, like an SD card taking its time.
private final class GatedFileSystem: DurableFileSystem {
    private let inner = InMemoryFileSystem()
    private let condition = NSCondition()
    private nonisolated(unsafe) var closed = false
    private nonisolated(unsafe) var blocked = 0

    func close() { condition.withLock { closed = true } }

    func open() {
        condition.withLock {
            closed = false
            condition.broadcast()
        }
    }

    /// Returns once a writer waits at the gate (or throws after 10 s).
    func waitUntilBlocked() throws {
        let deadline = Date().addingTimeInterval(10)
        try condition.withLock {
            while blocked == 0 {
                guard condition.wait(until: deadline) else { throw GateTimeout() }
            }
        }
    }

    func synchronizeFile(at path: String) throws(FileSystemError) {
        condition.withLock {
            blocked += 1
            condition.broadcast()
            while closed { condition.wait() }
            blocked -= 1
        }
        try inner.synchronizeFile(at: path)
    }

    func writeFile(at path: String, contents: [UInt8], permissions: UInt16) throws(FileSystemError) {
        try inner.writeFile(at: path, contents: contents, permissions: permissions)
    }

    func rename(from source: String, to destination: String) throws(FileSystemError) {
        try inner.rename(from: source, to: destination)
    }

    func synchronizeDirectory(at path: String) throws(FileSystemError) { try inner.synchronizeDirectory(at: path) }
    func readFile(at path: String) throws(FileSystemError) -> [UInt8] { try inner.readFile(at: path) }
    func removeFile(at path: String) throws(FileSystemError) { try inner.removeFile(at: path) }
    func fileExists(at path: String) -> Bool { inner.fileExists(at: path) }

    func createDirectory(at path: String, permissions: UInt16) throws(FileSystemError) {
        try inner.createDirectory(at: path, permissions: permissions)
    }
}

private struct GateTimeout: Error {}

/// A Wake transport that accepts everything.
private struct NullSink: WakeSink {
    var transportName: String { "loopback" }
    func openPairingWindow(
        for duration: Duration, forgetting phone: String?
    ) -> PairingOutcome {
        .failed("no pairing in this test")
    }

    func send(_ envelope: WakeEnvelope) -> Result<Void, WakeSinkError> { .success(()) }
    func bluetoothFacts() -> BluetoothFacts { BluetoothFacts(adapter: "hci0") }
}

/// The promise behind "fetch after every Wake" (docs/architecture.md): when the transport is handed a
/// Wake, the change it announces is already what the phone reads, on the leading edge and on the
/// trailing one; and no answer read before it still holds (`AnswerValidity`), so a server sends none of them again.
@Suite struct WakeFollowsPublicationTests {
    @Test func aPhoneFetchingAtTheWakeSeesTheChange() throws {
        let sink = ReadingSink()
        let runtime = ManualRuntime()
        let directory = BoardStateDirectory(path: "/var/lib/aiden-board", fileSystem: InMemoryFileSystem())
        var random = SplitMix64(seed: 1)
        let loaded = try directory.load(now: runtime.wallNow(), using: &random)
        let (logger, _) = Logger.capturing(component: "engine")
        let engine = BoardEngine(
            settings: BoardEngine.Settings(
                version: "test", liveActivityEnabled: true, retention: .seconds(600),
                coalesceWindow: .milliseconds(750)),
            loaded: loaded, directory: directory,
            policy: AccessPolicy(
                allowedSubnets: [try Subnet("192.168.42.0/24")],
                listenAddresses: [IPAddress(v4: 192, 168, 42, 1)]),
            sink: sink, runtime: runtime, logger: logger)
        sink.engine.withLock { $0 = engine }
        engine.start()
        runtime.advance(by: .seconds(1))
        // Leading edge: the start goes out at once.
        let created = engine.handleAgent(PublishedReadTests.start("Seen at the Wake"))
        #expect(created.status == 201)
        let id = try #require(
            String(decoding: created.body, as: UTF8.self).split(separator: "\"").drop { $0 != "request_id" }
                .dropFirst(2).first.map(String.init))
        // Trailing edge: an update inside the window goes out when it ends.
        let patch = HTTPRequest(
            method: "PATCH", path: "/v1/tasks/\(id)", body: Array(#"{"current_step":"the last step"}"#.utf8))
        #expect(engine.handleAgent(patch).status == 200)
        runtime.advance(by: .seconds(1))
        let seen = sink.seen.withLock { $0 }
        #expect(seen.count == 3, "the start Wake, the leading one, the trailing one")
        #expect(seen.first == #"{"status":"not_found"}"#)
        #expect(seen.dropFirst().first?.contains(#""task_title":"Seen at the Wake""#) == true)
        #expect(seen.last?.contains(#""current_step":"the last step""#) == true)
        #expect(sink.stillHolding.withLock { $0 } == [0, 0, 0], "each earlier answer ended before the Wake")
        #expect(sink.validities.withLock { $0 }.last?.holds == true, "the last one holds until the next change")
    }
}

/// A Wake transport that, like a phone woken by it, reads `/current` the moment it is handed a Wake.
private final class ReadingSink: WakeSink {
    let engine = Mutex<BoardEngine?>(nil)
    let seen = Mutex<[String]>([])
    /// What each read's answer holds while (`HTTPResponse.validity`), and at each Wake how many of the earlier ones
    /// still held.
    let validities = Mutex<[AnswerValidity]>([])
    let stillHolding = Mutex<[Int]>([])

    var transportName: String { "loopback" }

    func openPairingWindow(
        for duration: Duration, forgetting phone: String?
    ) -> PairingOutcome {
        .failed("no pairing in this test")
    }

    func send(_ envelope: WakeEnvelope) -> Result<Void, WakeSinkError> {
        if let engine = engine.withLock({ $0 }) {
            let earlier = validities.withLock { $0 }
            stillHolding.withLock { $0.append(earlier.filter(\.holds).count) }
            let response = engine.handlePhone(PublishedReadTests.current).response()
            seen.withLock { $0.append(String(decoding: response.body, as: UTF8.self)) }
            if let validity = response.validity { validities.withLock { $0.append(validity) } }
        }
        return .success(())
    }

    func bluetoothFacts() -> BluetoothFacts { BluetoothFacts(adapter: "hci0") }
}
