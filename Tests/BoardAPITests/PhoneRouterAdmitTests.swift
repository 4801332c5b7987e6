import FoundationEssentials
import NetworkAddress
import Testing

@testable import BoardAPI

/// What the server decides from a request's line and headers, before it reads the body.
@Suite struct PhoneRouterAdmitTests {
    func admit(
        _ method: String, _ path: String, peer: String = "192.168.42.2", headers: [String: String] = [:],
        boardAddresses: [IPAddress] = [IPAddress(v4: 192, 168, 42, 1)]
    ) throws -> RouteResult? {
        let router = PhoneRouter(
            policy: AccessPolicy(
                allowedSubnets: [try Subnet("192.168.42.0/24")], listenAddresses: [IPAddress(v4: 192, 168, 42, 1)]),
            liveActivityEnabled: true, retention: .seconds(600))
        let request = HTTPRequest(
            method: method, path: path, headers: ["host": "192.168.42.1:8080"].merging(headers) { $1 },
            peer: .ip(try #require(IPAddress(peer))), localAddress: IPAddress(v4: 192, 168, 42, 1))
        return router.admit(request, boardAddresses: { boardAddresses })
    }

    @Test func theAccessPolicyRunsOnEveryPath() throws {
        let outsider = try #require(try admit("POST", "/api/phone/app-state", peer: "10.99.0.2"))
        #expect(outsider.response.status == 403)
        #expect(outsider.denial == .peerOutsideAllowedSubnets(IPAddress(v4: 10, 99, 0, 2)))
        let rebinding = try #require(try admit("GET", "/status", headers: ["host": "evil.example"]))
        #expect(rebinding.response.status == 403)
        #expect(try admit("GET", "/api/live-activity/current") == nil)
        #expect(
            try admit("POST", "/api/phone/app-state", headers: ["content-type": "application/json"]) == nil,
            "the phone's own report is read whole")
    }

    /// The app-state path, like an answer's: the policy, the cross-site rule (any method), then the media type
    /// of a POST, so no web page and no form can report the phone's state or clock.
    @Test func theAppStateRulesRunBeforeTheBody() throws {
        let path = "/api/phone/app-state"
        let json = ["content-type": "application/json"]
        let page = try admit("POST", path, headers: json.merging(["origin": "http://evil.example"]) { $1 })
        #expect(page?.response.status == 403)
        #expect(page?.denial?.code == "cross_site")
        #expect(
            page?.denial?.description.hasSuffix("a web page may not report the phone's app state or clock") == true)
        let fetch = try admit("GET", path, headers: ["sec-fetch-site": "cross-site"])
        #expect(fetch?.denial == .crossSiteFetch("cross-site", refusing: .appState))
        for form in ["text/plain", "application/x-www-form-urlencoded", "multipart/form-data"] {
            let refused = try admit("POST", path, headers: ["content-type": form])
            #expect(refused?.response.status == 415, "\(form)")
            #expect(
                refused.map { String(decoding: $0.response.body, as: UTF8.self) }?
                    .contains("an app-state report must be sent") == true)
        }
        #expect(try admit("POST", path)?.response.status == 415, "no Content-Type")
        #expect(try admit("POST", path, headers: json) == nil)
        #expect(try admit("POST", path, headers: json.merging(["origin": "http://192.168.42.1:8080"]) { $1 }) == nil)
        #expect(try admit("GET", path) == nil, "405 once whole")
    }

    /// The pairing path's own rules, in the documented order: peer and cross-site (even before the method),
    /// then the media type of a POST. A GET goes on, to be answered 405 once whole.
    @Test func thePairingRulesRunBeforeTheBody() throws {
        let path = "/api/bluetooth/pairing/start"
        let json = ["content-type": "application/json"]
        #expect(try admit("POST", path, peer: "192.168.42.1", headers: json)?.response.status == 403)
        #expect(
            try admit("GET", path, peer: "192.168.42.1")?.denial == .pairingFromTheBoard(IPAddress(v4: 192, 168, 42, 1))
        )
        let page = try admit("POST", path, headers: json.merging(["origin": "http://evil.example"]) { $1 })
        #expect(page?.response.status == 403)
        #expect(page?.denial?.code == "cross_site")
        let form = try admit("POST", path, headers: ["content-type": "application/x-www-form-urlencoded"])
        #expect(form?.response.status == 415)
        #expect(form?.denial == nil)
        #expect(try admit("POST", path, headers: json) == nil)
        #expect(try admit("GET", path) == nil)
    }

    /// An answer path: the policy, the cross-site rule (any method), then the media type of a POST.
    @Test func theAnswerRulesRunBeforeTheBody() throws {
        let path = "/api/live-activity/tasks/chat_1/answer"
        let json = ["content-type": "application/json"]
        #expect(try admit("POST", path, peer: "10.99.0.2", headers: json)?.response.status == 403)
        let page = try admit("POST", path, headers: json.merging(["origin": "http://evil.example"]) { $1 })
        #expect(page?.response.status == 403)
        #expect(page?.denial?.code == "cross_site")
        #expect(page?.denial?.description.hasSuffix("a web page may not answer a task for the person") == true)
        let fetch = try admit("GET", path, headers: ["sec-fetch-site": "cross-site"])
        #expect(fetch?.denial == .crossSiteFetch("cross-site", refusing: .answer))
        let form = try admit("POST", path, headers: ["content-type": "text/plain"])
        #expect(form?.response.status == 415)
        #expect(
            form.map { String(decoding: $0.response.body, as: UTF8.self) }?.contains("an answer must be sent") == true)
        #expect(try admit("POST", path, headers: json) == nil)
        #expect(try admit("POST", path, headers: json.merging(["origin": "http://192.168.42.1:8080"]) { $1 }) == nil)
        #expect(try admit("GET", path) == nil, "405 once whole")
        #expect(
            try admit("POST", "/api/live-activity/tasks/a/b/answer", headers: ["content-type": "text/plain"]) == nil)
    }

    /// The ECM server hands over only what `admit` passed, and tells `handle` so (`admitted`), which then does not
    /// ask the access policy again: for every request `admit` passes, the answer is the same either way.
    @Test func anAdmittedRequestIsAnsweredAsIfThePolicyRanAgain() throws {
        var fixture = try RouterFixture()
        _ = fixture.start(#"{"task_title":"Open Settings"}"#)
        let router = PhoneRouter(policy: fixture.policy, liveActivityEnabled: true, retention: fixture.facts.retention)
        let board = fixture.state.published(now: fixture.now, retention: fixture.facts.retention)
        let (facts, now) = (fixture.facts, fixture.now)
        var admittedCount = 0
        for peer in ["192.168.42.2", "127.0.0.1", "10.99.0.2"] {
            for host in ["192.168.42.1:8080", "localhost", "evil.example", nil] {
                for (method, path) in [
                    ("GET", "/api/live-activity/current"), ("HEAD", "/api/live-activity/current"),
                    ("POST", "/api/live-activity/current"), ("GET", "/api/live-activity/events"), ("GET", "/status"),
                    ("GET", "/nowhere"),
                ] {
                    let request = HTTPRequest(
                        method: method, path: path, headers: host.map { ["host": $0] } ?? [:],
                        peer: .ip(try #require(IPAddress(peer))), localAddress: IPAddress(v4: 192, 168, 42, 1))
                    guard router.admit(request, boardAddresses: { [IPAddress(v4: 192, 168, 42, 1)] }) == nil else {
                        continue
                    }
                    admittedCount += 1
                    let asked = router.handle(request, board: board, facts: facts, now: now)
                    let trusted = router.handle(request, board: board, facts: facts, now: now, admitted: true)
                    #expect(asked.response == trusted.response && asked.denial == trusted.denial, "\(method) \(path)")
                }
            }
        }
        #expect(admittedCount == 2 * 2 * 6, "the link's peer and loopback, with either good Host")
    }
}
