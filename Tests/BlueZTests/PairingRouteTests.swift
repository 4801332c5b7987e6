import BoardAPI
import Foundation
import LiveActivity
import NetworkAddress
import Testing

/// `POST /api/bluetooth/pairing/start` through the pure phone router: the answer and the effect it asks for.
@Suite("Pairing route")
struct PairingRouteTests {
    static let now = Date(timeIntervalSince1970: 1_780_000_000)

    func route(
        _ method: String = "POST", body: String = "", transport: String = "bluez",
        bluetooth: BluetoothFacts = BluetoothFacts(adapter: "hci0", adapterPresent: true, bluezRunning: true),
        peer: String = "192.168.42.2"
    ) throws -> RouteResult {
        let policy = AccessPolicy(
            allowedSubnets: [try Subnet("192.168.42.0/24")],
            listenAddresses: [IPAddress(v4: 192, 168, 42, 1)])
        var state = BoardState(store: TaskStore(generation: "g1"), epoch: 4660)
        let facts = BoardFacts(
            version: "0", uptimeSeconds: 1, liveActivityEnabled: true, retention: .seconds(600),
            wake: WakeFacts(transport: transport), bluetooth: bluetooth, usb: USBLinkFacts(link: "up"))
        let request = HTTPRequest(
            method: method, path: "/api/bluetooth/pairing/start", headers: ["host": "192.168.42.1:8080"],
            body: Array(body.utf8), peer: .ip(IPAddress(peer) ?? .v4(0)), localAddress: IPAddress(v4: 192, 168, 42, 1))
        return PhoneRouter(policy: policy, liveActivityEnabled: true, retention: .seconds(600)).handle(
            request, board: state.published(), facts: facts, now: Self.now)
    }

    func json(_ result: RouteResult) throws -> [String: Any] {
        try #require(JSONSerialization.jsonObject(with: Data(result.response.body)) as? [String: Any])
    }

    @Test func opensAWindowWithTheDefaultLength() throws {
        let result = try route()
        #expect(result.response.status == 200)
        #expect(result.effect == .openPairingWindow(seconds: 120))
        let body = try json(result)
        #expect(body["status"] as? String == "ok")
        let pairing = try #require(body["pairing"] as? [String: Any])
        #expect(pairing["open"] as? Bool == true)
        #expect(pairing["closes_at"] as? String == Timestamp.format(Self.now.addingTimeInterval(120)))
        #expect(pairing["seconds"] as? Int == 120)
    }

    @Test(arguments: [
        (#"{"seconds": 300}"#, 200, 300), (#"{"seconds": 1}"#, 200, 1), (#"{"seconds": 30, "x": 1}"#, 200, 30),
        ("  \n", 200, 120), (#"{"seconds": 301}"#, 400, 0), (#"{"seconds": 0}"#, 400, 0),
        (#"{"seconds": 1.5}"#, 400, 0), (#"{"seconds": "60"}"#, 400, 0), ("[1]", 400, 0), ("{", 400, 0),
    ])
    func bodyIsChecked(body: String, status: Int, seconds: Int) throws {
        let result = try route(body: body)
        #expect(result.response.status == status, "\(body)")
        #expect(result.effect == (status == 200 ? .openPairingWindow(seconds: seconds) : nil), "\(body)")
        if status == 400 { #expect(try json(result)["status"] as? String == "error") }
    }

    @Test func refusedWithoutBlueZOrOutsideTheLink() throws {
        #expect(try route(transport: "loopback").response.status == 409)
        #expect(try route(bluetooth: BluetoothFacts(adapter: "hci0", bluezRunning: false)).response.status == 503)
        #expect(
            try route(bluetooth: BluetoothFacts(adapter: "hci0", adapterPresent: false, bluezRunning: true))
                .response.status == 503)
        let outsider = try route(peer: "10.0.0.9")
        #expect(outsider.response.status == 403 && outsider.effect == nil)
        let get = try route("GET")
        #expect(get.response.status == 405 && get.effect == nil)
        #expect(try route(transport: "loopback").effect == nil)
    }

    @Test func statusShowsThePairingWindow() throws {
        let policy = AccessPolicy(allowedSubnets: [], listenAddresses: [])
        var state = BoardState(store: TaskStore(generation: "g1"), epoch: 1)
        let facts = BoardFacts(
            version: "0", uptimeSeconds: 1, liveActivityEnabled: true, retention: .seconds(600),
            wake: WakeFacts(transport: "bluez"),
            bluetooth: BluetoothFacts(
                adapter: "hci0", pairingClosesInSeconds: 42, problem: "adapter hci0 is powered off"),
            usb: USBLinkFacts(link: "up"))
        let request = HTTPRequest(
            method: "GET", path: "/api/bluetooth/status", headers: ["host": "localhost"],
            peer: .ip(IPAddress(v4: 127, 0, 0, 1)), localAddress: IPAddress(v4: 127, 0, 0, 1))
        let result = PhoneRouter(policy: policy, liveActivityEnabled: true, retention: .seconds(600)).handle(
            request, board: state.published(), facts: facts, now: Self.now)
        let body = try json(result)
        let pairing = try #require(body["pairing"] as? [String: Any])
        #expect(pairing["open"] as? Bool == true && pairing["closes_in_seconds"] as? Int == 42)
        #expect(body["problem"] as? String == "adapter hci0 is powered off")
    }
}
