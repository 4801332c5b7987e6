import AgentCLI
import FoundationEssentials
import Testing
import WireFormat

/// `aidenctl mcp`'s protocol as transcripts: lines in, lines out, the board answered in memory.
@Suite struct MCPServerTests {
    /// Answers by method and path prefix; records what it was asked.
    final class ScriptedBoard: AgentTransport, @unchecked Sendable {
        var answers: [(prefix: String, status: Int, body: String)]
        var sent: [AgentRequest] = []

        init(_ answers: [(String, Int, String)]) { self.answers = answers.map { ($0.0, $0.1, $0.2) } }

        func send(_ request: AgentRequest, socketPath: String) -> Result<AgentResponse, TransportFailure> {
            sent.append(request)
            let line = "\(request.method) \(request.path)"
            guard let index = answers.firstIndex(where: { line.hasPrefix($0.prefix) }) else {
                return .failure(.unreachable("no such file or directory"))
            }
            let answer = answers.remove(at: index)
            return .success(AgentResponse(status: answer.status, body: Array(answer.body.utf8)))
        }
    }

    static let initialize =
        #"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#

    static func object(_ line: String?) -> [String: JSONValue] {
        guard let line, case let .object(members)? = try? JSONDecoder().decode(JSONValue.self, from: Data(line.utf8))
        else { return [:] }
        return members
    }

    static func server(_ board: ScriptedBoard = ScriptedBoard([])) -> MCPServer {
        MCPServer(socketPath: "/run/aiden/agent.sock", version: "1.2.3", transport: board)
    }

    @Test func initializeNegotiatesARevisionAndNotificationsGetNoAnswer() {
        for (asked, agreed) in [
            ("2025-06-18", "2025-06-18"), ("2025-03-26", "2025-03-26"), ("2024-11-05", "2024-11-05"),
            ("2099-01-01", "2025-06-18"),
        ] {
            var server = Self.server()
            let line = server.handle(Self.initialize.replacingOccurrences(of: "2025-06-18", with: asked))
            let result = Self.object(line)["result"]
            guard case let .object(members)? = result else {
                Issue.record("no result: \(line ?? "nil")")
                continue
            }
            #expect(members["protocolVersion"] == .string(agreed), "\(asked)")
            #expect(server.revision == agreed)
        }
        var server = Self.server()
        #expect(server.handle(#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#) == nil)
        #expect(server.handle("   ") == nil)
        #expect(
            server.handle(#"{"jsonrpc":"2.0","id":"p","method":"ping"}"#) == #"{"id":"p","jsonrpc":"2.0","result":{}}"#)
    }

    @Test func badMessagesGetTheirJSONRPCErrors() {
        var server = Self.server()
        let cases: [(String, Int)] = [
            ("not json", -32700),
            (#"{"id":1,"method":"ping"}"#, -32600),
            (#"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#, -32002),
            (#"{"jsonrpc":"2.0","id":3,"method":"resources/list"}"#, -32601),
            (#"{"jsonrpc":"2.0","id":4,"method":"initialize","params":{}}"#, -32602),
            ("[]", -32600),
            ("[" + Self.initialize + "]", -32600),
        ]
        for (line, code) in cases {
            var answer = server.handle(line)
            // A batch is answered with a batch: look at its one answer.
            if let text = answer, text.hasPrefix("["), text.hasSuffix("]") {
                answer = String(text.dropFirst().dropLast())
            }
            guard case let .object(error)? = Self.object(answer)["error"] else {
                Issue.record("no error for \(line)")
                continue
            }
            #expect(error["code"] == .number(String(code)), "\(line)")
        }
        _ = server.handle(Self.initialize)
        let unknown = Self.object(
            server.handle(#"{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"rm_rf","arguments":{}}}"#))
        #expect(unknown["error"].map { "\($0)" }?.contains("-32602") == true)
        let wrongType = server.handle(
            #"{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"task_update","arguments":{"request_id":"r","progress":2}}}"#
        )
        #expect(wrongType?.contains("progress must be a number from 0 to 1") == true, "\(wrongType ?? "")")
        let unknownArgument = server.handle(
            #"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"task_status","arguments":{"request_id":"r","x":1}}}"#
        )
        #expect(unknownArgument?.contains("unknown argument x") == true)
    }

    @Test func toolsListEachWithItsSchemasAndOlderRevisionsWithoutOutputSchemas() {
        var server = Self.server()
        _ = server.handle(Self.initialize)
        let listed = Self.object(server.handle(#"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#))
        guard case let .object(result)? = listed["result"], case let .array(tools)? = result["tools"] else {
            Issue.record("no tools")
            return
        }
        let names = tools.compactMap { tool -> String? in
            guard case let .object(members) = tool, case let .string(name)? = members["name"] else { return nil }
            #expect(members["inputSchema"] != nil && members["outputSchema"] != nil && members["description"] != nil)
            return name
        }
        #expect(
            names == [
                "task_start", "task_update", "task_handover", "task_end", "task_heartbeat", "task_list", "task_status",
            ])
        var old = Self.server()
        _ = old.handle(Self.initialize.replacingOccurrences(of: "2025-06-18", with: "2024-11-05"))
        let oldList = old.handle(#"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#) ?? ""
        #expect(!oldList.contains("outputSchema"), "no output schemas before 2025-06-18")
    }

    @Test func aStartIsSentWithAKeyDerivedFromTheCallAndAnsweredWithTheTask() {
        let task = #"{"status":"ok","live_activity":{"request_id":"chat_1","status":"running","revision":1}}"#
        let board = ScriptedBoard([("POST /v1/tasks", 201, task), ("POST /v1/tasks", 201, task)])
        var server = Self.server(board)
        _ = server.handle(Self.initialize)
        let call =
            #"{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"task_start","arguments":{"title":"Open Settings","step":"Looking"}}}"#
        let line = server.handle(call) ?? ""
        #expect(line.contains(#""structuredContent":{"task":{"request_id":"chat_1","revision":1,"status":"running"}}"#))
        #expect(line.contains(#""isError":false"#))
        _ = server.handle(call.replacingOccurrences(of: #""id":9"#, with: #""id":10"#))
        let keys = board.sent.map { $0.header("Idempotency-Key") }
        #expect(keys.count == 2 && keys[0] == keys[1], "the same call, the same key: a retry")
        #expect(keys[0]?.hasPrefix("mcp:") == true)
        #expect(board.sent.first.map { String(decoding: $0.body, as: UTF8.self) }?.contains("Open Settings") == true)
    }

    @Test func aRefusalIsAToolErrorWithTheBoardsMessageAndAMissingBoardOneAtOnce() {
        let refusal =
            #"{"status":"error","error":{"code":"conflict","message":"task \"r\" has ended (status completed) and is final"}}"#
        var server = Self.server(ScriptedBoard([("PATCH /v1/tasks/r", 409, refusal)]))
        _ = server.handle(Self.initialize)
        let refused = server.handle(
            #"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"task_update","arguments":{"request_id":"r","step":"x"}}}"#
        )
        #expect(refused?.contains(#""isError":true"#) == true)
        #expect(refused?.contains(#"conflict: task \"r\" has ended (status completed) and is final (409)"#) == true)
        let gone = server.handle(
            #"{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"task_status","arguments":{"request_id":"r"}}}"#
        )
        #expect(gone?.contains("cannot reach aiden-board at /run/aiden/agent.sock") == true, "\(gone ?? "")")
    }

    @Test func aHandoverAsksThenWaitsAndSaysWhatThePersonAnswered() {
        let waiting =
            #"{"status":"ok","live_activity":{"request_id":"r","status":"running","phase":"waiting_user","answer":null}}"#
        let timeout =
            #"{"status":"ok","for":"answer","outcome":"timeout","live_activity":{"request_id":"r","status":"running"}}"#
        let stopped =
            #"{"status":"ok","for":"answer","outcome":"timeout","live_activity":{"request_id":"r","status":"running","answer":{"answer":"stop"}}}"#
        let board = ScriptedBoard([
            ("PATCH /v1/tasks/r", 200, waiting), ("GET /v1/tasks/r/wait?for=answer&timeout=2", 200, timeout),
            ("GET /v1/tasks/r/wait?for=answer&timeout=2", 200, stopped),
        ])
        var server = Self.server(board)
        _ = server.handle(Self.initialize)
        let line = server.handle(
            #"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"task_handover","arguments":{"request_id":"r","step":"Enter the PIN","timeout_seconds":30}}}"#
        )
        #expect(line?.contains(#""outcome":"stop""#) == true, "\(line ?? "")")
        #expect(board.sent.map(\.method) == ["PATCH", "GET", "GET"])
        #expect(String(decoding: board.sent[0].body, as: UTF8.self).contains(#""phase":"waiting_user""#))
        #expect(board.sent[1].holdSeconds == 2)

        let done =
            #"{"status":"ok","for":"answer","outcome":"came","live_activity":{"request_id":"r","status":"running","answer":{"answer":"done"}}}"#
        let quick = ScriptedBoard([
            ("PATCH /v1/tasks/r", 200, waiting), ("GET /v1/tasks/r/wait?for=answer&timeout=1", 200, done),
        ])
        var second = Self.server(quick)
        _ = second.handle(Self.initialize)
        let answered = second.handle(
            #"{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"task_handover","arguments":{"request_id":"r","step":"Scan","timeout_seconds":1}}}"#
        )
        #expect(answered?.contains(#""outcome":"done""#) == true, "\(answered ?? "")")
    }
}
