import BoardAPI
import Foundation
import LiveActivity
import NetworkAddress
import Platform
import Synchronization
import TestSupport
import Testing
import WakeProtocol

@testable import BoardService

/// A BLE sink that records the pairing windows it was asked for.
final class PairingSink: WakeSink {
    let asked = Mutex<[Duration]>([])

    var transportName: String { "bluez" }

    func send(_ envelope: WakeEnvelope) -> Result<Void, WakeSinkError> { .success(()) }

    func bluetoothFacts() -> BluetoothFacts {
        BluetoothFacts(adapter: "hci0", adapterPresent: true, bluezRunning: true)
    }

    func openPairingWindow(for duration: Duration) -> Result<Void, WakeSinkError> {
        asked.withLock { $0.append(duration) }
        return .success(())
    }
}

/// `POST /api/bluetooth/pairing/start` through the engine: the board's own addresses reach the router.
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
                peer: .ip(peer), localAddress: IPAddress(v4: 192, 168, 42, 1)))
    }

    func json(_ response: HTTPResponse) throws -> [String: Any] {
        try #require(JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any])
    }

    @Test func aRequestFromAnyAddressOfTheBoardIsRefusedAndLogged() throws {
        for peer in [IPAddress(v4: 192, 168, 42, 7), IPAddress(v4: 192, 168, 42, 1), IPAddress(v4: 127, 0, 0, 1)] {
            let refused = pairing(from: peer)
            #expect(refused.status == 403, "\(peer)")
            #expect(try (json(refused)["error"] as? [String: Any])?["code"] as? String == "not_ecm_peer")
        }
        #expect(sink.asked.withLock { $0 }.isEmpty, "no window was asked for")
        #expect(pairing().status == 200 && sink.asked.withLock { $0 } == [.seconds(60)], "the phone may")
        #expect(
            logs.lines.contains(
                "engine: 403 POST /api/bluetooth/pairing/start from 192.168.42.7: only the phone at the other end of "
                    + "the USB link may open a pairing window; 192.168.42.7 is an address of the board itself"))
    }
}
