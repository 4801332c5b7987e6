import FoundationEssentials
import LiveActivity
import NetworkAddress

@testable import BoardAPI

/// A board with a store, both routers and fixed facts; requests are values, no sockets.
struct RouterFixture {
    var state = BoardState(store: TaskStore(generation: "g1"), epoch: 4660, instanceID: "1f2e3d4c5b6a7988")
    var facts = BoardFacts(
        version: "0.1.0", instanceID: "i-1", uptimeSeconds: 12, liveActivityEnabled: true, retention: .seconds(600),
        wake: WakeFacts(transport: "loopback"), bluetooth: BluetoothFacts(adapter: "hci0"),
        usb: USBLinkFacts(link: "unknown"))
    var now = Date(timeIntervalSince1970: 1_780_000_000)
    var random = CountingGenerator()
    let policy: AccessPolicy
    let agentRouter = AgentRouter()

    init() throws {
        let policy = AccessPolicy(
            allowedSubnets: [try Subnet("192.168.42.0/24")],
            listenAddresses: [IPAddress(v4: 192, 168, 42, 1)])
        self.policy = policy
    }

    /// A request from the phone on the ECM link, with a correct Host.
    mutating func phone(
        _ method: String, _ target: String, headers: [String: String] = [:], body: String = "",
        bodyBytes: [UInt8]? = nil, peer: String = "192.168.42.2"
    ) -> RouteResult {
        var request = Self.request(method, target, headers: headers, body: body)
        if let bodyBytes { request.body = bodyBytes }
        request.peer = .ip(IPAddress(peer) ?? .v4(0))
        request.localAddress = IPAddress(v4: 192, 168, 42, 1)
        if request.header("host") == nil { request.headers["host"] = "192.168.42.1:8080" }
        // The engine builds its router from the same settings its facts report.
        let router = PhoneRouter(
            policy: policy, liveActivityEnabled: facts.liveActivityEnabled, retention: facts.retention)
        let result = router.handle(
            request, board: state.published(now: now, retention: facts.retention), facts: facts, now: now)
        // The engine's part: remember what the phone reported.
        if case let .recordPhoneAppState(reported) = result.effect { facts.phoneApp = reported }
        // And to record an answer for real, answering with what came of it.
        if case let .recordAnswer(id, answer) = result.effect {
            do {
                let outcome = try state.store.answer(id: id, answer, now: now)
                return RouteResult(response: PhoneRouter.answerResponse(outcome), change: outcome.change)
            } catch {
                return RouteResult(response: PhoneRouter.answerRefusal(error))
            }
        }
        return result
    }

    /// A request from an agent on the Unix socket.
    mutating func agent(
        _ method: String, _ target: String, headers: [String: String] = [:], body: String = "",
        bodyBytes: [UInt8]? = nil
    ) -> RouteResult {
        var request = Self.request(method, target, headers: headers, body: body)
        if let bodyBytes { request.body = bodyBytes }
        return agentRouter.handle(request, state: &state, facts: facts, now: now, using: &random)
    }

    /// Starts a task through the agent API and returns its id.
    mutating func start(_ body: String) -> String {
        let result = agent("POST", "/v1/tasks", body: body)
        return result.json?["live_activity"]?["request_id"]?.string ?? "<start failed: \(result.text)>"
    }

    static func request(_ method: String, _ target: String, headers: [String: String], body: String) -> HTTPRequest {
        let pieces = target.split(separator: "?", maxSplits: 1)
        let query: [(name: String, value: String)] =
            pieces.count < 2
            ? []
            : pieces[1].split(separator: "&").map { pair in
                let kv = pair.split(separator: "=", maxSplits: 1)
                return (name: String(kv[0]), value: kv.count > 1 ? String(kv[1]) : "")
            }
        return HTTPRequest(
            method: method, path: String(pieces[0]), query: query, headers: headers,
            body: Array(body.utf8))
    }
}

/// Deterministic ids: chat_0000000000000001, …
struct CountingGenerator: RandomNumberGenerator {
    var value: UInt64 = 0
    mutating func next() -> UInt64 {
        value += 1
        return value
    }
}

extension RouteResult {
    var status: Int { response.status }
    var text: String { String(decoding: response.body, as: UTF8.self) }
    var json: JSON? { try? JSONDecoder().decode(JSON.self, from: Data(response.body)) }
}

/// Just enough JSON to read answers in assertions.
enum JSON: Decodable, Equatable {
    case null, bool(Bool), number(Double), string(String), array([JSON]), object([String: JSON])

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Double.self) {
            self = .number(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([JSON].self) {
            self = .array(value)
        } else {
            self = .object(try container.decode([String: JSON].self))
        }
    }

    subscript(key: String) -> JSON? {
        if case let .object(object) = self { return object[key] }
        return nil
    }

    subscript(index: Int) -> JSON? {
        if case let .array(array) = self, array.indices.contains(index) { return array[index] }
        return nil
    }

    var string: String? { if case let .string(value) = self { value } else { nil } }
    var number: Double? { if case let .number(value) = self { value } else { nil } }
    var bool: Bool? { if case let .bool(value) = self { value } else { nil } }
    var array: [JSON]? { if case let .array(value) = self { value } else { nil } }
    var isNull: Bool { self == .null }
}
