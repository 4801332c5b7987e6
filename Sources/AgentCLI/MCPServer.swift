import FoundationEssentials
import WireFormat

/// `aidenctl mcp`: a Model Context Protocol server (JSON-RPC 2.0, one message per line on stdio) whose tools
/// drive a task's life on the board (docs/agents.md). One line in, at most one line out: the executable reads
/// stdin and writes what this returns; the board is behind `AgentTransport`, so transcripts run in memory.
///
/// Lifecycle: `initialize` negotiates the revision (the client's when it is one of `revisions`, else the newest
/// here), then `tools/list` and `tools/call`; `ping` at any time; notifications get no answer. Before
/// `initialize`, anything but `ping` is refused (-32002).
package struct MCPServer {
    /// The protocol revisions spoken here, newest first.
    package static let revisions = ["2025-06-18", "2025-03-26", "2024-11-05"]

    package let socketPath: String
    package let version: String
    let transport: any AgentTransport
    /// The revision `initialize` agreed on; nil before it.
    package private(set) var revision: String?

    package init(socketPath: String, version: String, transport: any AgentTransport) {
        self.socketPath = socketPath
        self.version = version
        self.transport = transport
    }

    /// One line from the client: the answer's line, or nil (a notification, a blank line, or a batch of them).
    package mutating func handle(_ line: String) -> String? {
        guard line.contains(where: { !$0.isWhitespace }) else { return nil }
        guard let message = try? JSONDecoder().decode(JSONValue.self, from: Data(line.utf8)), message.isReadable
        else { return Self.encode(Self.error(id: .null, code: -32700, message: "parse error: not JSON")) }
        if case let .array(batch) = message {
            // 2025-03-26 allows batches; each member answered, notifications not.
            guard !batch.isEmpty else {
                return Self.encode(Self.error(id: .null, code: -32600, message: "invalid request: an empty batch"))
            }
            let answers = batch.compactMap { member -> JSONValue? in
                guard case let .object(fields) = member, fields["method"] == .string("initialize") else {
                    return respond(to: member)
                }
                return Self.error(
                    id: Self.id(of: member) ?? .null, code: -32600,
                    message: "invalid request: initialize must not be part of a batch")
            }
            return answers.isEmpty ? nil : Self.encode(.array(answers))
        }
        return respond(to: message).map(Self.encode)
    }

    private mutating func respond(to message: JSONValue) -> JSONValue? {
        guard case let .object(members) = message, members["jsonrpc"] == .string("2.0"),
            case let .string(method)? = members["method"]
        else {
            // A response from the client (to a request we never send) or something that is no request.
            if case let .object(members) = message, members["method"] == nil,
                members["result"] != nil || members["error"] != nil
            {
                return nil
            }
            return Self.error(
                id: Self.id(of: message) ?? .null, code: -32600,
                message: "invalid request: a JSON-RPC 2.0 object with a method is expected")
        }
        guard let id = members["id"] else { return nil }  // a notification: initialized, cancelled, …
        guard Self.isValidID(id) else {
            return Self.error(id: .null, code: -32600, message: "invalid request: the id must be a string or a number")
        }
        let params = members["params"] ?? .object([:])
        guard case let .object(arguments) = params else {
            return Self.error(id: id, code: -32602, message: "invalid params: params must be an object")
        }
        switch method {
        case "initialize":
            return initialize(id: id, arguments)
        case "ping":
            return Self.result(id: id, .object([:]))
        case "tools/list", "tools/call":
            guard let revision else {
                return Self.error(id: id, code: -32002, message: "server not initialized: send initialize first")
            }
            if method == "tools/list" {
                return Self.result(id: id, .object(["tools": .array(MCPTools.all.map { $0.listing(revision) })]))
            }
            return call(id: id, arguments, revision: revision)
        default:
            return Self.error(id: id, code: -32601, message: "method not found: \(method)")
        }
    }

    private mutating func initialize(id: JSONValue, _ arguments: [String: JSONValue]) -> JSONValue {
        guard case let .string(asked)? = arguments["protocolVersion"] else {
            return Self.error(id: id, code: -32602, message: "invalid params: protocolVersion is required")
        }
        let agreed = Self.revisions.contains(asked) ? asked : Self.revisions[0]
        revision = agreed
        return Self.result(
            id: id,
            .object([
                "protocolVersion": .string(agreed),
                "capabilities": .object(["tools": .object(["listChanged": .bool(false)])]),
                "serverInfo": .object(["name": "aidenctl", "version": .string(version)]),
                "instructions": .string(MCPTools.instructions),
            ]))
    }

    private func call(id: JSONValue, _ arguments: [String: JSONValue], revision: String) -> JSONValue {
        guard case let .string(name)? = arguments["name"] else {
            return Self.error(id: id, code: -32602, message: "invalid params: the tool's name is required")
        }
        guard let tool = MCPTools.all.first(where: { $0.name == name }) else {
            return Self.error(id: id, code: -32602, message: "unknown tool: \(name)")
        }
        let input: [String: JSONValue]
        switch arguments["arguments"] {
        case nil, .null?: input = [:]
        case let .object(members)?: input = members
        default: return Self.error(id: id, code: -32602, message: "invalid params: arguments must be an object")
        }
        let board = MCPTools.Board(socketPath: socketPath, transport: transport)
        switch tool.run(input, board) {
        case let .failure(.arguments(problem)):
            return Self.error(id: id, code: -32602, message: "invalid arguments for \(name): \(problem)")
        case let .failure(.board(message)):
            return Self.result(
                id: id, .object(["content": Self.text(message), "isError": .bool(true)]))
        case let .success(structured):
            var result: [String: JSONValue] = [
                "content": Self.text(JSONText.sortedLine(structured)), "isError": .bool(false),
            ]
            // structuredContent and outputSchema came with 2025-06-18; older clients read the text.
            if revision >= "2025-06-18" { result["structuredContent"] = structured }
            return Self.result(id: id, .object(result))
        }
    }

    private static func text(_ text: String) -> JSONValue {
        .array([.object(["type": "text", "text": .string(text)])])
    }

    private static func result(id: JSONValue, _ result: JSONValue) -> JSONValue {
        .object(["jsonrpc": "2.0", "id": id, "result": result])
    }

    private static func error(id: JSONValue, code: Int, message: String) -> JSONValue {
        .object([
            "jsonrpc": "2.0", "id": id,
            "error": .object(["code": .number(String(code)), "message": .string(message)]),
        ])
    }

    private static func id(of message: JSONValue) -> JSONValue? {
        guard case let .object(members) = message, let id = members["id"], isValidID(id) else { return nil }
        return id
    }

    private static func isValidID(_ id: JSONValue) -> Bool {
        switch id {
        case .string, .number: true
        default: false
        }
    }

    private static func encode(_ value: JSONValue) -> String { JSONText.sortedLine(value) }
}
