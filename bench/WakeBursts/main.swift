// Final state on the phone after bursts of changes: the board's engine and the phone's client, as
// built, joined by an instantaneous transport on one manual runtime (simulated time, nothing
// sleeps), so 10,000 random bursts take seconds and the figures are the protocol's own: the Wake
// coalescer, the sequence filter, the fetch scheduler and the ETag path.
//
// Usage: aiden-bench-bursts [BURSTS] [SEED]   (prints one JSON object)
import BoardAPI
import BoardService
import Dispatch
import FoundationEssentials
import LiveActivity
import Logging
import NetworkAddress
import PhoneCore
import PhoneService
import Platform
import Synchronization
import TestSupport
import WakeProtocol
import WireFormat

let arguments = CommandLine.arguments
let bursts = arguments.count > 1 ? Int(arguments[1]) ?? 10_000 : 10_000
var random = SplitMix64(seed: arguments.count > 2 ? UInt64(arguments[2]) ?? 1 : 1)

let runtime = ManualRuntime()
let quiet = Logger(component: "bench", minimumLevel: .error) { _, _ in }
let fileSystem = InMemoryFileSystem()
let directory = BoardStateDirectory(path: "/state", fileSystem: fileSystem)
var seedRandom = SystemRandomNumberGenerator()
let loaded = try directory.load(now: runtime.wallNow(), using: &seedRandom)
let wire = Wire()
let engine = BoardEngine(
    settings: BoardEngine.Settings(
        version: "bench", liveActivityEnabled: true, retention: .seconds(600), coalesceWindow: .milliseconds(750)),
    loaded: loaded, directory: directory,
    policy: AccessPolicy(allowedSubnets: [], listenAddresses: [IPAddress(v4: 127, 0, 0, 1)]),
    sink: wire, runtime: runtime, logger: quiet)
let cards = CardLog(runtime: runtime)
let client = PhoneClient(
    session: PhoneSession(settings: PhoneSession.Settings(phoneID: "bench")), transport: BoardOnWire(engine: engine),
    runtime: runtime, output: cards, notifiers: [], saveRecord: { _ throws(AtomicWriteError) in }, logger: quiet,
    recordLane: Lane("aiden.bench.record"))
wire.attach(client)
client.submit(PhoneSession.Input.wakeLink(.connected))
client.submit(PhoneSession.Input.started)
engine.start()
runtime.advance(by: .seconds(2))

let created = engine.handleAgent(
    HTTPRequest(method: "POST", path: "/v1/tasks", body: Array(#"{"task_title":"bench"}"#.utf8)))
let id =
    String(decoding: created.body, as: UTF8.self).split(separator: "\"").drop { $0 != "request_id" }.dropFirst(2)
    .first.map(String.init) ?? ""
runtime.advance(by: .seconds(2))

var delays: [Double] = []  // ms from the burst's last change to the card showing it
var lost = 0
var changes = 0
for burst in 0..<bursts {
    let count = Int(random.next() % 20) + 1
    var step = ""
    for index in 0..<count {
        if index > 0 { runtime.advance(by: .milliseconds(Int64(random.next() % 300))) }
        step = "burst \(burst) change \(index)"
        let response = engine.handleAgent(
            HTTPRequest(
                method: "PATCH", path: "/v1/tasks/\(id)", body: Array(#"{"current_step":"\#(step)"}"#.utf8)))
        precondition(response.status == 200, "update refused: \(response.status)")
        changes += 1
    }
    let last = runtime.monotonicNow()
    // Give the phone up to 5 s of simulated time to show it, in 1 ms steps.
    var shownAt: Duration?
    for _ in 0..<5_000 {
        if let at = cards.firstShown(step) {
            shownAt = at
            break
        }
        runtime.advance(by: .milliseconds(1))
    }
    if let shownAt {
        let (seconds, attoseconds) = (shownAt - last).components
        delays.append(Double(seconds) * 1_000 + Double(attoseconds) / 1e15)
    } else {
        lost += 1
    }
    // A random quiet gap before the next burst (sometimes none: bursts run into each other).
    runtime.advance(by: .milliseconds(Int64(random.next() % 1_500)))
}

delays.sort()
func percentile(_ p: Double, of sorted: [Double]) -> Double {
    guard !sorted.isEmpty else { return .nan }
    return sorted[min(sorted.count - 1, max(0, Int((p / 100 * Double(sorted.count)).rounded(.up)) - 1))]
}
print(
    #"{"bursts":\#(bursts),"changes":\#(changes),"lost_final_states":\#(lost),"#
        + #""final_state_ms":{"p50":\#(percentile(50, of: delays)),"p99":\#(percentile(99, of: delays)),"max":\#(delays.last ?? .nan)},"#
        + #""wakes":\#(wire.count)}"#)

/// The loopback Wake transport without the socket: each Wake reaches the phone at once.
final class Wire: WakeSink {
    private let client = Mutex<PhoneClient?>(nil)
    private let sent = Atomic<Int>(0)

    var transportName: String { "loopback" }
    var count: Int { sent.load(ordering: .relaxed) }

    func attach(_ phone: PhoneClient) { client.withLock { $0 = phone } }

    func send(_ envelope: WakeEnvelope) -> Result<Void, WakeSinkError> {
        sent.add(1, ordering: .relaxed)
        client.withLock { $0 }?.submit(.wakeValue(envelope.bytes, fullLength: 12))
        return .success(())
    }

    func bluetoothFacts() -> BluetoothFacts { BluetoothFacts(adapter: "none") }

    func openPairingWindow(for duration: Duration, forgetting phone: String?) -> PairingOutcome {
        .failed("no radio in the burst bench")
    }
}

/// The phone's HTTP requests answered by the engine directly, as from the ECM link.
struct BoardOnWire: BoardTransport {
    let engine: BoardEngine

    func send(_ request: BoardRequest, completion: @escaping @Sendable (BoardResponse) -> Void) {
        let target = request.target.split(separator: "?", maxSplits: 1)
        let query: [(name: String, value: String)] =
            target.count < 2
            ? []
            : target[1].split(separator: "&").map { pair in
                let parts = pair.split(separator: "=", maxSplits: 1)
                return (String(parts[0]), parts.count > 1 ? String(parts[1]) : "")
            }
        var headers = ["host": "127.0.0.1:8080"]
        for (name, value) in request.headers { headers[name] = value }
        let response = engine.handlePhone(
            HTTPRequest(
                method: request.method, path: String(target[0]), query: query, headers: headers, body: request.body,
                peer: .ip(IPAddress(v4: 127, 0, 0, 1)), localAddress: IPAddress(v4: 127, 0, 0, 1))
        ).response()
        completion(.answered(status: response.status, etag: response.header("ETag"), body: response.body))
    }
}

/// When each step first appeared on the card, in simulated time.
final class CardLog: PhoneOutput {
    private let runtime: ManualRuntime
    private let shown = Mutex<[String: Duration]>([:])

    init(runtime: ManualRuntime) { self.runtime = runtime }

    func emit(_ event: PhoneEvent, at date: Date) {
        guard case let .card(card) = event, let step = card.snapshot?.currentStep else { return }
        let now = runtime.monotonicNow()
        shown.withLock { shown in
            if shown[step] == nil { shown[step] = now }
        }
    }

    func firstShown(_ step: String) -> Duration? { shown.withLock { $0[step] } }
}
