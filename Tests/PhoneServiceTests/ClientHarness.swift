import Foundation
import PhoneCore
import PhoneTestSupport
import Platform
import TestSupport
import WakeProtocol

@testable import PhoneService

/// Records what the client shows and alerts, and each alert handed over before a record holding its key had
/// been written (`shownBeforeSaved`: the once-only promise broken).
final class RecordingOutput: PhoneOutput, AlertNotifier, @unchecked Sendable {  // guarded by `lock`
    private let lock = NSLock()
    private var recorded: [PhoneEvent] = []
    private var delivered: [Alert] = []
    private var early: [Alert] = []
    private let saved: RecordGate?

    init(saved: RecordGate? = nil) { self.saved = saved }

    func emit(_ event: PhoneEvent, at date: Date) { lock.withLock { recorded.append(event) } }
    func deliver(_ alert: Alert) {
        let isSaved = saved?.written?.contains(alert.key) ?? true
        lock.withLock {
            delivered.append(alert)
            if !isSaved { early.append(alert) }
        }
    }

    var shownBeforeSaved: [Alert] { lock.withLock { early } }

    var events: [PhoneEvent] { lock.withLock { recorded } }
    var alerts: [Alert] { lock.withLock { delivered } }
    var alertNames: [String] { alerts.map { "\($0.transition.rawValue) \($0.requestID ?? $0.connectionID ?? "-")" } }
    var cards: [Card] { events.compactMap { if case let .card(card) = $0 { card } else { nil } } }
    var wakes: [WakeNotice] { events.compactMap { if case let .wake(notice) = $0 { notice } else { nil } } }
}

/// A Wake source the test feeds by hand.
final class FakeWakeSource: WakeSource, @unchecked Sendable {  // guarded by `lock`
    private let lock = NSLock()
    private var deliver: (@Sendable (WakeSourceEvent) -> Void)?

    var facts: WakeSourceFacts { WakeSourceFacts(transport: "fake") }

    func start(deliver: @escaping @Sendable (WakeSourceEvent) -> Void) throws(WakeSourceError) {
        lock.withLock { self.deliver = deliver }
        deliver(.state(.connected))
    }

    func stop() { lock.withLock { deliver = nil } }

    func inject(_ event: WakeSourceEvent) {
        let deliver = lock.withLock { self.deliver }
        deliver?(event)
    }

    /// Starts the source into `client`, as the daemon wires a real one. With `runtime`, each event has been
    /// handled when `inject` returns: the record queue's thread may be running the executor just then (an
    /// alert waiting for its record), and the event would wait its turn while the test looked.
    func start(into client: PhoneClient, runtime: ManualRuntime? = nil) throws {
        try start { event in
            switch event {
            case let .value(bytes, length): client.submit(.wakeValue(bytes, fullLength: length))
            case let .state(state, detail): client.submit(.wakeLink(state, detail: detail))
            }
            runtime?.awaitIdleExecutor()
        }
    }

    func wake(seq: UInt64, epoch: UInt16 = 1234) {
        inject(.value(WakeEnvelope(reason: .liveActivity, epoch: epoch, sequence: seq).bytes, fullLength: 12))
    }
}

/// The alert record's writes as the test holds them: each save runs on the client's own record queue (as in
/// the daemon, never on the executor) and, while `hold()` is in force, waits there until `release()`. Knows the
/// last record whose write completed, which is durable then (`AtomicFile` syncs before it renames).
final class RecordGate: @unchecked Sendable {  // guarded by `condition`
    private let condition = NSCondition()
    private var held = false
    private var waiters = 0
    private var last: AlertRecord?

    func hold() { condition.withLock { held = true } }

    func release() {
        condition.withLock {
            held = false
            condition.broadcast()
        }
    }

    /// Waits (bounded, so a broken client fails rather than hangs) until a save waits at the gate; whether one did.
    func awaitSave(seconds: Double = 10) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        return condition.withLock {
            while waiters == 0 { if !condition.wait(until: deadline) { break } }
            return waiters > 0
        }
    }

    /// The record of the last save that completed.
    var written: AlertRecord? { condition.withLock { last } }

    func save(_ record: AlertRecord, _ write: (AlertRecord) throws(AtomicWriteError) -> Void) throws(AtomicWriteError) {
        condition.withLock {
            waiters += 1
            condition.broadcast()
            while held { condition.wait() }
            waiters -= 1
        }
        try write(record)
        condition.withLock { last = record }
    }
}

/// A `PhoneClient` wired to fakes, the way `PhoneDaemon` wires the real parts: the alert record is written on a
/// queue of its own, so an alert's record and the alert are ordered as in the daemon.
struct ClientHarness {
    let runtime = ManualRuntime(wallOrigin: Date(timeIntervalSince1970: 1_781_247_600))
    let transport: FakeBoardTransport
    let records = RecordGate()
    let output: RecordingOutput
    let wakeSource = FakeWakeSource()
    let directory: PhoneStateDirectory
    let client: PhoneClient
    let logs: LogCapture

    var board: FakeBoard { transport.board }

    init(
        board: FakeBoard = FakeBoard(), fileSystem: InMemoryFileSystem = InMemoryFileSystem(),
        usbWatched: Bool = false
    ) {
        transport = FakeBoardTransport(board: board)
        output = RecordingOutput(saved: records)
        let directory = PhoneStateDirectory(path: "/state", fileSystem: fileSystem)
        try? directory.prepare()
        self.directory = directory
        let (logger, logs) = Logger.capturing()
        self.logs = logs
        let record = directory.loadAlertRecord().record
        let records = self.records
        client = PhoneClient(
            session: PhoneSession(settings: .init(phoneID: "p1"), record: record),
            transport: transport, runtime: runtime, output: output, notifiers: [output],
            saveRecord: { record throws(AtomicWriteError) in
                try records.save(record) { record throws(AtomicWriteError) in try directory.saveAlertRecord(record) }
            }, logger: logger, recordLane: Lane("test.phone.record"))
        if usbWatched { client.submit(.usbWatched(true)) }
    }

    /// Waits for the alert record's writes to end; the alerts that waited for them are shown by then (the manual
    /// runtime runs them as soon as they are handed over).
    func settle() {
        client.flushRecord()
    }

    /// Starts the Wake source into the client, then the client.
    func start() throws {
        try wakeSource.start(into: client, runtime: runtime)
        client.submit(.started)
        runtime.awaitIdleExecutor()
    }
}
