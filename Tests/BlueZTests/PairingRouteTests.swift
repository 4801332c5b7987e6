import BoardAPI
import Foundation
import LiveActivity
import NetworkAddress
import Testing

/// `POST /api/bluetooth/pairing/start` through the pure phone router: the answer and the effect it asks for.
@Suite("Pairing route")
struct PairingRouteTests {
    static let now = Date(timeIntervalSince1970: 1_780_000_000)

    /// A pairing request as the phone sends it (from 192.168.42.2 to the board's 192.168.42.1, `Content-Type:
    /// application/json`, no `Origin`), with what a test changes.
    func route(
        _ method: String = "POST", body: String = "", transport: String = "bluez",
        bluetooth: BluetoothFacts = BluetoothFacts(adapter: "hci0", adapterPresent: true, bluezRunning: true),
        peer: String = "192.168.42.2", local: String = "192.168.42.1",
        headers: [String: String?] = [:], boardAddresses: [String] = ["127.0.0.1", "192.168.42.1"]
    ) throws -> RouteResult {
        let policy = AccessPolicy(
            allowedSubnets: [try Subnet("192.168.42.0/24")],
            listenAddresses: [IPAddress(v4: 192, 168, 42, 1)])
        var state = BoardState(store: TaskStore(generation: "g1"), epoch: 4660, instanceID: "1f2e3d4c5b6a7988")
        let facts = BoardFacts(
            version: "0", uptimeSeconds: 1, liveActivityEnabled: true, retention: .seconds(600),
            wake: WakeFacts(transport: transport), bluetooth: bluetooth, usb: USBLinkFacts(link: "up"),
            boardAddresses: boardAddresses.compactMap { IPAddress($0) })
        var sent: [String: String] = ["host": "192.168.42.1:8080", "content-type": "application/json"]
        for (name, value) in headers { sent[name] = value }
        let request = HTTPRequest(
            method: method, path: "/api/bluetooth/pairing/start", headers: sent,
            body: Array(body.utf8), peer: .ip(IPAddress(peer) ?? .v4(0)), localAddress: IPAddress(local))
        return PhoneRouter(policy: policy, liveActivityEnabled: true, retention: .seconds(600)).handle(
            request, board: state.published(now: Self.now, retention: .seconds(600)), facts: facts, now: Self.now)
    }

    func json(_ result: RouteResult) throws -> [String: Any] {
        try #require(JSONSerialization.jsonObject(with: Data(result.response.body)) as? [String: Any])
    }

    @Test func opensAWindowWithTheDefaultLength() throws {
        let result = try route()
        #expect(result.response.status == 200)
        #expect(result.effect == .openPairingWindow(seconds: 120, phoneAddress: nil))
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
        #expect(
            result.effect == (status == 200 ? .openPairingWindow(seconds: seconds, phoneAddress: nil) : nil), "\(body)")
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

    /// Only the phone at the other end of the cable: everyone else gets 403 `not_ecm_peer` (logged as a
    /// denial) and no window.
    @Test(
        arguments: [
            ("192.168.42.2", "192.168.42.1", 200, nil), ("::ffff:192.168.42.2", "::ffff:192.168.42.1", 200, nil),
            ("127.0.0.1", "127.0.0.1", 403, "not_ecm_peer"), ("::1", "::1", 403, "not_ecm_peer"),
            ("::ffff:127.0.0.1", "::ffff:127.0.0.1", 403, "not_ecm_peer"),
            // A process on the board connecting to 192.168.42.1 arrives from 192.168.42.1.
            ("192.168.42.1", "192.168.42.1", 403, "not_ecm_peer"),
            ("::ffff:192.168.42.1", "192.168.42.1", 403, "not_ecm_peer"),
            // An outsider is refused by the rule of every path first.
            ("10.0.0.9", "192.168.42.1", 403, "forbidden"),
        ] as [(String, String, Int, String?)])
    func onlyThePhoneOnTheLinkMayOpenAWindow(peer: String, local: String, status: Int, code: String?) throws {
        let result = try route(peer: peer, local: local)
        #expect(result.response.status == status, "\(peer) → \(local)")
        if let code {
            #expect(result.effect == nil && result.denial != nil, "\(peer)")
            let error = try #require(try json(result)["error"] as? [String: Any])
            #expect(error["code"] as? String == code, "\(peer)")
            #expect((error["message"] as? String)?.isEmpty == false)
        } else {
            #expect(
                result.effect == .openPairingWindow(seconds: 120, phoneAddress: nil) && result.denial == nil, "\(peer)")
        }
    }

    @Test func refusedBeforeAnythingElseIsChecked() throws {
        // From the board itself, a GET or a form post learns only that it is not the phone.
        for (method, headers) in [("GET", [:]), ("POST", ["content-type": "text/plain"])]
            as [(String, [String: String?])]
        {
            let result = try route(method, peer: "127.0.0.1", local: "127.0.0.1", headers: headers)
            #expect(result.response.status == 403 && result.effect == nil, "\(method) \(headers)")
        }
        let elsewhere = try route(peer: "192.168.42.7", boardAddresses: ["192.168.42.1", "192.168.42.7"])
        #expect(
            elsewhere.response.status == 403 && elsewhere.denial == .pairingFromTheBoard(IPAddress(v4: 192, 168, 42, 7))
        )
    }

    /// `Content-Type: application/json` (parameters allowed), else 415: an HTML form cannot send it.
    @Test(
        arguments: [
            ("application/json", 200), ("application/json; charset=utf-8", 200), ("Application/JSON", 200),
            (" application/json ;charset=UTF-8", 200), ("application/json;", 200),
            (nil, 415), ("", 415), ("text/plain", 415), ("application/x-www-form-urlencoded", 415),
            ("multipart/form-data; boundary=x", 415), ("application/json-seq", 415), ("application/jsonx", 415),
            ("text/json", 415), ("application/json, text/plain", 415), ("application/vnd.api+json", 415),
        ] as [(String?, Int)])
    func contentTypeMustBeJSON(contentType: String?, status: Int) throws {
        let result = try route(body: #"{"seconds":60}"#, headers: ["content-type": contentType])
        #expect(result.response.status == status, "\(contentType ?? "none")")
        if status == 415 {
            #expect(result.effect == nil && result.denial == nil)
            let error = try #require(try json(result)["error"] as? [String: Any])
            #expect(error["code"] as? String == "unsupported_media_type")
            #expect((error["message"] as? String)?.contains("Content-Type: application/json") == true)
        } else {
            #expect(result.effect == .openPairingWindow(seconds: 60, phoneAddress: nil))
        }
    }

    /// A page in the phone's browser: its `Origin` or `Sec-Fetch-Site` gives it away (403 `cross_site`).
    @Test(
        arguments: [
            (["origin": "http://evil.example"], 403), (["origin": "null"], 403),
            (["sec-fetch-site": "cross-site"], 403), (["sec-fetch-site": "same-site"], 403),
            (["origin": "http://192.168.42.1:8080", "sec-fetch-site": "same-origin"], 200),
            (["sec-fetch-site": "none"], 200),
        ] as [([String: String?], Int)])
    func crossSiteRequestsAreRefused(headers: [String: String?], status: Int) throws {
        let result = try route(headers: headers)
        #expect(result.response.status == status, "\(headers)")
        if status == 403 {
            #expect(result.effect == nil && result.denial != nil)
            #expect(try (json(result)["error"] as? [String: Any])?["code"] as? String == "cross_site")
        }
    }

    /// The answer says what the peripheral decided: when the window closes, or when to ask again.
    @Test func answersSayWhatBecameOfTheRequest() throws {
        let open = PhoneRouter.pairingAnswer(.open(closesIn: .milliseconds(49_500)), now: Self.now)
        #expect(open.status == 200)
        let body = try #require(JSONSerialization.jsonObject(with: Data(open.body)) as? [String: Any])
        let pairing = try #require(body["pairing"] as? [String: Any])
        #expect(pairing["open"] as? Bool == true && pairing["seconds"] as? Int == 50)
        #expect(pairing["closes_at"] as? String == Timestamp.format(Self.now.addingTimeInterval(49.5)))

        let cooling = PhoneRouter.pairingAnswer(.coolingDown(retryIn: .milliseconds(7_200)), now: Self.now)
        #expect(cooling.status == 429)
        #expect(cooling.headers.contains { $0.name == "Retry-After" && $0.value == "8" })
        let error = try #require(
            (JSONSerialization.jsonObject(with: Data(cooling.body)) as? [String: Any])?["error"] as? [String: Any])
        #expect(error["code"] as? String == "pairing_cooling_down")
        #expect((error["message"] as? String)?.contains("in 8 s") == true)
        let soon = PhoneRouter.pairingAnswer(.coolingDown(retryIn: .milliseconds(1)), now: Self.now)
        #expect(soon.headers.contains { $0.name == "Retry-After" && $0.value == "1" })
    }

    @Test func statusShowsThePairingWindow() throws {
        let policy = AccessPolicy(allowedSubnets: [], listenAddresses: [])
        var state = BoardState(store: TaskStore(generation: "g1"), epoch: 1, instanceID: "1f2e3d4c5b6a7988")
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
            request, board: state.published(now: Self.now, retention: .seconds(600)), facts: facts, now: Self.now)
        let body = try json(result)
        let pairing = try #require(body["pairing"] as? [String: Any])
        #expect(pairing["open"] as? Bool == true && pairing["closes_in_seconds"] as? Int == 42)
        #expect(body["problem"] as? String == "adapter hci0 is powered off")
    }

    /// The phone host names its own adapter; the board forgets a stale bond with it when the window opens. Only
    /// a Bluetooth address can be named, so nothing else can be removed that way.
    @Test(
        arguments: [
            (#"{"seconds":60,"phone_address":"00:aa:01:01:00:01"}"#, 200, "00:AA:01:01:00:01"),
            (#"{"seconds":60,"phone_address":null}"#, 200, nil),
            (#"{"seconds":60}"#, 200, nil),
            (#"{"phone_address":"00:AA:01:01:00"}"#, 400, nil),
            (#"{"phone_address":"../../hci0"}"#, 400, nil),
            (#"{"phone_address":"00:AA:01:01:00:0G"}"#, 400, nil),
            (#"{"phone_address":7}"#, 400, nil),
        ] as [(String, Int, String?)])
    func thePhoneNamesItsOwnAddress(body: String, status: Int, address: String?) throws {
        try checkPhoneAddress(body: body, status: status, address: address)
    }

    /// `phone_bonded`: a phone that still holds a bond asks whether the board does; it must name itself.
    @Test(
        arguments: [
            (#"{"seconds":60,"phone_address":"00:AA:01:01:00:01","phone_bonded":true}"#, 200, true),
            (#"{"seconds":60,"phone_address":"00:AA:01:01:00:01","phone_bonded":false}"#, 200, false),
            (#"{"seconds":60,"phone_bonded":true}"#, 400, false),
            (#"{"seconds":60,"phone_address":"00:AA:01:01:00:01","phone_bonded":"yes"}"#, 400, false),
        ] as [(String, Int, Bool)])
    func aPhoneThatStillHoldsABondSaysSo(body: String, status: Int, bonded: Bool) throws {
        let result = try route(body: body)
        #expect(result.response.status == status, "\(body)")
        if status == 200 {
            #expect(
                result.effect
                    == .openPairingWindow(seconds: 60, phoneAddress: "00:AA:01:01:00:01", phoneBonded: bonded))
        } else {
            #expect(result.effect == nil)
        }
        let kept = PhoneRouter.pairingAnswer(.bondKept, now: Date(timeIntervalSince1970: 0))
        #expect(kept.status == 200)
        #expect(
            String(decoding: kept.body, as: UTF8.self) == #"{"pairing":{"bonded":true,"open":false},"status":"ok"}"#)
    }

    func checkPhoneAddress(body: String, status: Int, address: String?) throws {
        let result = try route(body: body)
        #expect(result.response.status == status, "\(body)")
        if status == 200 {
            #expect(
                result.effect == .openPairingWindow(seconds: body.contains("seconds") ? 60 : 120, phoneAddress: address)
            )
        } else {
            #expect(result.effect == nil)
            #expect(try json(result)["status"] as? String == "error")
        }
    }
}
