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

/// A BLE sink whose pairing window answers what the test says, and records what it was asked.
final class PairingSink: WakeSink {
    let outcome = Mutex<PairingOutcome>(.open(closesIn: .seconds(120)))
    let asked = Mutex<[Duration]>([])
    /// The phone addresses named with each request (nil: none named).
    let forgetting = Mutex<[String?]>([])

    var transportName: String { "bluez" }

    func send(_ envelope: WakeEnvelope) -> Result<Void, WakeSinkError> { .success(()) }

    func bluetoothFacts() -> BluetoothFacts {
        BluetoothFacts(adapter: "hci0", adapterPresent: true, bluezRunning: true)
    }

    func openPairingWindow(for duration: Duration, forgetting phone: String?) -> PairingOutcome {
        asked.withLock { $0.append(duration) }
        forgetting.withLock { $0.append(phone) }
        return outcome.withLock { $0 }
    }
}

/// `POST /api/bluetooth/pairing/start` through the engine: the board's own addresses reach the router, and the
/// answer is what the peripheral decided, not what was asked.
@Suite struct PairingEngineTests {
    let runtime = ManualRuntime()
    let sink = PairingSink()
    let engine: BoardEngine
    let logs: LogCapture

    init() throws {
        let fileSystem = InMemoryFileSystem()
        let directory = BoardStateDirectory(path: "/var/lib/aiden-board", fileSystem: fileSystem)
        var random = SplitMix64(seed: 1)
        let loaded = try directory.load(now: runtime.wallNow(), using: &random)
        let (logger, capture) = Logger.capturing(component: "engine")
        logs = capture
        engine = BoardEngine(
            settings: BoardEngine.Settings(
                version: "test", liveActivityEnabled: true, retention: .seconds(600),
                coalesceWindow: .milliseconds(750)),
            loaded: loaded, directory: directory,
            policy: AccessPolicy(
                allowedSubnets: [try Subnet("192.168.42.0/24")], listenAddresses: [IPAddress(v4: 192, 168, 42, 1)]),
            sink: sink, runtime: runtime, logger: logger,
            boardAddresses: {
                [IPAddress(v4: 127, 0, 0, 1), IPAddress(v4: 192, 168, 42, 1), IPAddress(v4: 192, 168, 42, 7)]
            })
    }

    func pairing(
        from peer: IPAddress = IPAddress(v4: 192, 168, 42, 2), body: String = #"{"seconds":60}"#
    )
        -> HTTPResponse
    {
        engine.handlePhone(
            HTTPRequest(
                method: "POST", path: "/api/bluetooth/pairing/start",
                headers: ["host": "192.168.42.1:8080", "content-type": "application/json"], body: Array(body.utf8),
                peer: .ip(peer), localAddress: IPAddress(v4: 192, 168, 42, 1))
        ).response()
    }

    func json(_ response: HTTPResponse) throws -> [String: Any] {
        try #require(JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any])
    }

    @Test func theAnswerIsWhatThePeripheralDecided() throws {
        sink.outcome.withLock { $0 = .open(closesIn: .seconds(42)) }
        let open = pairing()
        #expect(open.status == 200)
        let window = try #require(try json(open)["pairing"] as? [String: Any])
        #expect(window["seconds"] as? Int == 42, "the 300 s limit left 42 s, though 60 were asked")
        #expect(window["closes_at"] as? String == Timestamp.format(runtime.wallNow().addingTimeInterval(42)))
        #expect(sink.asked.withLock { $0 } == [.seconds(60)])
        #expect(sink.forgetting.withLock { $0 } == [nil])
        // The phone names its own adapter: the peripheral is told whose stale bond to forget.
        _ = pairing(body: #"{"seconds":60,"phone_address":"00:aa:01:01:00:01"}"#)
        #expect(sink.forgetting.withLock { $0 } == [nil, "00:AA:01:01:00:01"])

        sink.outcome.withLock { $0 = .coolingDown(retryIn: .seconds(5)) }
        let cooling = pairing()
        #expect(cooling.status == 429 && cooling.headers.contains { $0 == ("Retry-After", "5") })
        #expect(try (json(cooling)["error"] as? [String: Any])?["code"] as? String == "pairing_cooling_down")

        sink.outcome.withLock { $0 = .failed("the Bluetooth peripheral is stopping") }
        let failed = pairing()
        #expect(failed.status == 503 && failed.text.contains("the Bluetooth peripheral is stopping"))
        #expect(logs.lines.contains { $0.contains("pairing window open for 42") && $0.contains("192.168.42.2") })
    }

    @Test func aRequestFromAnyAddressOfTheBoardIsRefusedAndLogged() throws {
        for peer in [IPAddress(v4: 192, 168, 42, 7), IPAddress(v4: 192, 168, 42, 1), IPAddress(v4: 127, 0, 0, 1)] {
            let refused = pairing(from: peer)
            #expect(refused.status == 403, "\(peer)")
            #expect(try (json(refused)["error"] as? [String: Any])?["code"] as? String == "not_ecm_peer")
        }
        #expect(sink.asked.withLock { $0 }.isEmpty, "no window was asked for")
        #expect(pairing().status == 200, "the phone may")
        #expect(sink.asked.withLock { $0 } == [.seconds(60)])
        #expect(
            logs.lines.contains(
                "engine: 403 POST /api/bluetooth/pairing/start from 192.168.42.7: only the phone at the other end of "
                    + "the USB link may open a pairing window; 192.168.42.7 is an address of the board itself"))
    }
}
