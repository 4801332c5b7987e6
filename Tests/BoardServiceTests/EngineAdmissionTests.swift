import BoardAPI
import NetworkAddress
import Testing

@testable import BoardService

/// The engine's side of the listeners' admission checks: each decision, and its log line (with the peer: its
/// address on the ECM listener, its process on the agent socket), rate-limited together.
@Suite struct EngineAdmissionTests {
    static let local = IPAddress(v4: 192, 168, 42, 1)

    func refusal(_ engine: BoardEngine, _ peer: IPAddress, interface: String? = nil) -> HTTPResponse? {
        engine.refusePhoneConnection(peer: peer, local: Self.local, interface: interface)
    }

    /// A refused connection is answered: 403 with the board's JSON error body, saying why.
    @Test func connectionsFromTheBoardAndOutsidersAreRefusedAndLogged() throws {
        let board = try EngineFixture()
        #expect(refusal(board.engine, IPAddress(v4: 192, 168, 42, 2)) == nil)
        let own = try #require(refusal(board.engine, IPAddress(v4: 127, 0, 0, 1)))
        #expect(own.status == 403)
        #expect(own.header("content-type") == "application/json")
        let outsider = try #require(refusal(board.engine, IPAddress(v4: 10, 99, 0, 2)))
        #expect(outsider.status == 403)
        #expect(
            String(decoding: outsider.body, as: UTF8.self)
                == #"{"status":"error","error":{"code":"forbidden","message":"peer 10.99.0.2 is outside loopback and "#
                + #"the allowed subnets"}}"#)
        #expect(
            board.logs.lines(at: .notice) == [
                "engine: refused a connection from 127.0.0.1: connection from 127.0.0.1, the board itself: a local process is "
                    + "served only when [http] listen has a loopback listener",
                "engine: refused a connection from 10.99.0.2: peer 10.99.0.2 is outside loopback and the allowed subnets",
            ])
    }

    @Test func theHeadersAreJudgedBeforeTheBody() throws {
        let board = try EngineFixture()
        let page = HTTPRequest(
            method: "POST", path: "/api/phone/app-state", headers: ["host": "evil.example"],
            peer: .ip(IPAddress(v4: 192, 168, 42, 2)), localAddress: IPAddress(v4: 192, 168, 42, 1))
        #expect(board.engine.admitPhone(page)?.status == 403)
        var phone = page
        phone.headers["host"] = "192.168.42.1:8080"
        #expect(board.engine.admitPhone(phone)?.status == 415, "no Content-Type: refused before the body")
        phone.headers["content-type"] = "application/json"
        #expect(board.engine.admitPhone(phone) == nil)
        #expect(
            board.logs.lines(at: .notice)
                == [
                    "engine: 403 POST /api/phone/app-state from 192.168.42.2: Host 'evil.example' does not name this board"
                ])
    }

    @Test func agentSocketLinesNameTheProcess() throws {
        let board = try EngineFixture()
        board.engine.refusedAgentConnection(HTTPRequest.Credentials(uid: 1000, pid: 4242), open: 9, limit: 8)
        #expect(
            board.logs.lines(at: .notice)
                == ["engine: agent socket: refused a connection from uid 1000 pid 4242: it has 8 open (at most 8)"])
        board.fileSystem.inject(.failOnce, atOperation: board.fileSystem.operationCount)
        let response = board.engine.handleAgent(
            HTTPRequest(
                method: "POST", path: "/v1/tasks", body: Array(#"{"task_title":"Lost?"}"#.utf8),
                credentials: HTTPRequest.Credentials(uid: 1000, pid: 4242)))
        #expect(response.status == 503)
        #expect(
            board.logs.lines(at: .error).contains {
                $0.hasPrefix("engine: writing tasks.json failed: POST /v1/tasks from uid 1000 pid 4242: ")
            },
            "\(board.logs.lines)")
    }

    @Test func refusalsAreLoggedWithinTheirBudget() throws {
        let board = try EngineFixture()
        for _ in 0..<20 { _ = refusal(board.engine, IPAddress(v4: 10, 99, 0, 2)) }
        #expect(board.logs.lines(at: .notice).count == 6)  // the first, then 5 repeats
        board.runtime.advance(by: .seconds(10))
        _ = refusal(board.engine, IPAddress(v4: 10, 99, 0, 2))
        #expect(board.logs.lines(at: .notice).last?.hasSuffix("(14 more refused since the last report)") == true)
    }

    /// An outsider's flood spent the one budget there was, and the process on the board refused next left no
    /// line (seen on the real stack): a new peer's first refusal is always named.
    @Test func oneOutsidersFloodDoesNotHideTheNextPeerRefused() throws {
        let board = try EngineFixture()
        for _ in 0..<50 { _ = refusal(board.engine, IPAddress(v4: 10, 99, 0, 2)) }
        _ = refusal(board.engine, IPAddress(v4: 10, 98, 0, 7))
        #expect(
            board.logs.lines(at: .notice).last?.contains("refused a connection from 10.98.0.7") == true,
            "\(board.logs.lines)")
    }

    /// When the board's addresses cannot be read, a peer inside the subnet cannot be told from the board itself:
    /// refused (it was served before: an empty list said "not the board").
    @Test func unreadableInterfacesRefuseTheLinkPeer() throws {
        let board = try EngineFixture(boardAddresses: { nil })
        let answer = try #require(refusal(board.engine, IPAddress(v4: 192, 168, 42, 2)))
        #expect(answer.status == 403)
        #expect(
            board.logs.lines(at: .notice) == [
                "engine: refused a connection from 192.168.42.2: the board's own addresses could not be read, so "
                    + "192.168.42.2 cannot be told from the board itself"
            ])
        // A pairing request is refused too.
        let pairing = board.phone(
            "POST", "/api/bluetooth/pairing/start", headers: ["content-type": "application/json"], body: "{}")
        #expect(pairing.status == 403)
        #expect(String(decoding: pairing.body, as: UTF8.self).contains("could not be read"))
    }
}
