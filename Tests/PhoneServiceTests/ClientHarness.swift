import Foundation
import PhoneCore
import PhoneTestSupport
import Platform
import TestSupport
import WakeProtocol

@testable import PhoneService

/// Records what the client shows and alerts.
final class RecordingOutput: PhoneOutput, AlertNotifier, @unchecked Sendable {  // guarded by `lock`
    private let lock = NSLock()
    private var recorded: [PhoneEvent] = []
    private var delivered: [Alert] = []

    func emit(_ event: PhoneEvent, at date: Date) { lock.withLock { recorded.append(event) } }
    func deliver(_ alert: Alert) { lock.withLock { delivered.append(alert) } }

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

    func wake(seq: UInt64, epoch: UInt16 = 1234) {
        inject(.value(WakeEnvelope(reason: .liveActivity, epoch: epoch, sequence: seq).bytes, fullLength: 12))
    }
}

/// A `PhoneClient` wired to fakes, the way `PhoneDaemon` wires the real parts.
struct ClientHarness {
    let runtime = ManualRuntime(wallOrigin: Date(timeIntervalSince1970: 1_781_247_600))
    let transport: FakeBoardTransport
    let output = RecordingOutput()
    let wakeSource = FakeWakeSource()
    let directory: PhoneStateDirectory
    let client: PhoneClient
    let logs: LogCapture

    var board: FakeBoard { transport.board }

    init(
        board: FakeBoard = FakeBoard(), fileSystem: InMemoryFileSystem = InMemoryFileSystem(),
        usbMonitored: Bool = false
    ) {
        transport = FakeBoardTransport(board: board)
        let directory = PhoneStateDirectory(path: "/state", fileSystem: fileSystem)
        try? directory.prepare()
        self.directory = directory
        let (logger, logs) = Logger.capturing()
        self.logs = logs
        let record = directory.loadAlertRecord().record
        client = PhoneClient(
            session: PhoneSession(settings: .init(phoneID: "p1", usbMonitored: usbMonitored), record: record),
            transport: transport, runtime: runtime, output: output, notifiers: [output],
            saveRecord: { record throws(AtomicWriteError) in try directory.saveAlertRecord(record) }, logger: logger,
            recordQueue: nil)
    }

    /// Starts the Wake source into the client, then the client.
    func start() throws {
        let client = self.client
        try wakeSource.start { event in
            switch event {
            case let .value(bytes, length): client.submit(.wakeValue(bytes, fullLength: length))
            case let .state(state, detail): client.submit(.wakeLink(state, detail: detail))
            }
        }
        client.submit(.started)
    }
}
