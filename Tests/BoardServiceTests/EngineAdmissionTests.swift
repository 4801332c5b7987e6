import BoardAPI
import NetworkAddress
import Testing

@testable import BoardService

/// The engine's side of the listeners' admission checks: each decision, and its log line (with the peer: its
/// address on the ECM listener, its process on the agent socket), rate-limited together.
@Suite struct EngineAdmissionTests {
    @Test func connectionsFromTheBoardAndOutsidersAreRefusedAndLogged() throws {
        let board = try EngineFixture()
        #expect(board.engine.acceptPhoneConnection(from: IPAddress(v4: 192, 168, 42, 2)))
        #expect(!board.engine.acceptPhoneConnection(from: IPAddress(v4: 127, 0, 0, 1)))
        #expect(!board.engine.acceptPhoneConnection(from: IPAddress(v4: 10, 99, 0, 2)))
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

    @Test func refusalsShareOneLogBudget() throws {
        let board = try EngineFixture()
        for _ in 0..<20 { _ = board.engine.acceptPhoneConnection(from: IPAddress(v4: 10, 99, 0, 2)) }
        #expect(board.logs.lines(at: .notice).count == 5)
        board.runtime.advance(by: .seconds(10))
        _ = board.engine.acceptPhoneConnection(from: IPAddress(v4: 10, 99, 0, 2))
        #expect(board.logs.lines(at: .notice).last?.hasSuffix("(15 more refused since the last report)") == true)
    }
}
