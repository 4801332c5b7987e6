import FoundationEssentials
import WireFormat

/// The tools of `aidenctl mcp` (`MCPServer`): each with its description, the JSON Schema of its input and of its
/// output, and what it asks of the board. The arguments are read strictly (a wrong type or an unknown name is
/// -32602, naming it); the board's refusals come back as tool errors carrying the board's message. Every write
/// carries an idempotency key derived from the call (the tool and its arguments), so a client that sends the same
/// call again after a lost answer gets the task as it is, not a second change; pass `idempotency_key` to make a
/// deliberate repeat of an identical update count.
package enum MCPTools {
    /// One tool.
    package struct Tool: Sendable {
        package let name: String
        package let title: String
        package let description: String
        package let inputSchema: JSONValue
        package let outputSchema: JSONValue
        let run: @Sendable ([String: JSONValue], Board) -> Result<JSONValue, Failure>

        /// Its entry in `tools/list` for `revision` (titles and output schemas came with 2025-06-18).
        func listing(_ revision: String) -> JSONValue {
            var members: [String: JSONValue] = [
                "name": .string(name), "description": .string(description), "inputSchema": inputSchema,
            ]
            if revision >= "2025-06-18" {
                members["title"] = .string(title)
                members["outputSchema"] = outputSchema
            }
            return .object(members)
        }
    }

    /// Why a call has no result: its arguments (a protocol error), or the board (a tool error with its message).
    package enum Failure: Error, Equatable {
        case arguments(String)
        case board(String)
    }

    /// The agent socket a call talks to.
    package struct Board {
        let socketPath: String
        let transport: any AgentTransport

        /// One request; the answer's JSON object, or the board's refusal as aidenctl words it.
        func send(_ request: AgentRequest, as command: Command) -> Result<[String: JSONValue], Failure> {
            let invocation = Invocation(socketPath: socketPath, command: command)
            switch AgentCLI.exchange(request, invocation: invocation, transport: transport) {
            case let .failure(failure):
                return .failure(.board(failure.message))
            case let .success(response):
                let parsed = (try? JSONDecoder().decode(JSONValue.self, from: Data(response.body)))
                guard (200..<300).contains(response.status) else {
                    let error = (try? JSONDecoder().decode(ErrorAnswer.self, from: Data(response.body)))?
                        .error
                    let failure = CLIFailure.daemon(
                        status: response.status, error: error, request: "\(request.method) \(request.path)")
                    return .failure(.board(failure.message))
                }
                guard case let .object(members)? = parsed, parsed?.isReadable == true else {
                    return .failure(.board("unusable answer from aiden-board at \(socketPath): not a JSON object"))
                }
                return .success(members)
            }
        }

        /// A write or read of one task: `{"task":{…}}` from the answer's `live_activity`.
        func task(_ command: Command, key: String) -> Result<JSONValue, Failure> {
            guard let request = command.request(idempotencyKey: key) else { preconditionFailure("a request") }
            return send(request, as: command).flatMap { members in
                guard case .object? = members[.liveActivity] else {
                    return .failure(.board("unusable answer from aiden-board at \(socketPath): no live_activity"))
                }
                return .success(.object(["task": members[.liveActivity] ?? .null]))
            }
        }
    }

    /// What the server tells the client at `initialize`.
    static let instructions =
        "Tools for one agent's tasks on the AidenBridge board: the phone shows each task as a Live Activity card. "
        + "Start a task, update it as the work moves (step, phase, progress), hand over to the person when you "
        + "need them (it blocks until they answer done or refuse, ask to stop, or the timeout passes), and end it. "
        + "Send a heartbeat during long silent work. A stop from the person means: stop, then end the task canceled."

    package static let all: [Tool] = [start, update, handover, end, heartbeat, list, status]

    /// The idempotency key of a write: `mcp:` and a hash of the tool's name and its arguments (keys sorted), or the
    /// `idempotency_key` the call gives.
    static func key(_ tool: String, _ arguments: [String: JSONValue]) -> String {
        if case let .string(given)? = arguments["idempotency_key"] { return given }
        return "mcp:" + IdempotencyKey.digest(tool + "\u{0}" + JSONText.sortedLine(.object(arguments)))
    }

    // MARK: The tools

    static let start = Tool(
        name: "task_start", title: "Start a task",
        description:
            "Starts a task on the board; the phone shows it as a Live Activity card. Returns the task, whose "
            + "request_id names it in every other tool. With request_id, calling it again returns the same task.",
        inputSchema: object(
            [
                "title": text("The card's title: what the task is, in a few words (at most 200 characters)."),
                "request_id": identifier("The task's id; the board makes one (chat_…) when absent."),
                "phone_id": identifier("Only this phone shows it; absent: any phone."),
                "step": text("What the agent does now (at most 500 characters)."),
                "phase": phase, "progress": progress,
                "action": text("The kind of action now, e.g. tap, type, read."),
                "target": text("What the action is on, e.g. Wi-Fi."),
                "tool_status": text(
                    "What the agent's tool is doing now, e.g. Reading the screen: the card's tool line."),
                "locale": text("The language of the task's texts, a BCP 47 tag such as en-US."),
                "can_stop": flag("Whether the card offers the person a stop (then watch for it: task_handover)."),
                "shows_progress": flag("Whether the card shows a progress bar."),
                "idempotency_key": key,
            ], required: ["title"]),
        outputSchema: taskOutput,
        run: { arguments, board in
            read(arguments, "task_start").flatMap { values -> Result<JSONValue, Failure> in
                guard let title = values.text("title") else { return .failure(.arguments("title is required")) }
                var start = Command.Start(
                    title: title, requestID: values.text("request_id"), phoneID: values.text("phone_id"),
                    step: values.text("step"), phase: values.phase(), progress: values.number("progress"),
                    action: values.text("action"), target: values.text("target"),
                    showsProgress: values.flag("shows_progress"), canStop: values.flag("can_stop"))
                start.toolStatus = values.text("tool_status")
                start.locale = values.text("locale")
                return board.task(.taskStart(start), key: start.idempotencyKey(fallback: key("task_start", arguments)))
            }
        })

    static let update = Tool(
        name: "task_update", title: "Update a task",
        description:
            "Changes a running task's step, phase, progress, action, target or tool line on the card: call it as the work "
            + "moves. Only the fields given change. An identical call is taken for a retry and changes nothing "
            + "again; pass idempotency_key to repeat one deliberately.",
        inputSchema: object(
            [
                "request_id": identifier("The task, from task_start."),
                "step": text("What the agent does now (at most 500 characters)."),
                "phase": phase, "progress": progress,
                "action": text("The kind of action now, e.g. tap, type, read."),
                "target": text("What the action is on."),
                "tool_status": text(
                    "What the agent's tool is doing now (the card's tool line, timed from when it changed); "
                        + "empty clears it."),
                "idempotency_key": key,
            ], required: ["request_id"]),
        outputSchema: taskOutput,
        run: { arguments, board in
            read(arguments, "task_update").flatMap { values -> Result<JSONValue, Failure> in
                var update = Command.Update(
                    requestID: values.text("request_id") ?? "", step: values.text("step"), phase: values.phase(),
                    action: values.text("action"), target: values.text("target"), progress: values.number("progress"))
                update.toolStatus = values.text("tool_status")
                guard
                    update.step != nil || update.phase != nil || update.action != nil || update.target != nil
                        || update.progress != nil || update.toolStatus != nil
                else {
                    return .failure(
                        .arguments("give at least one of step, phase, progress, action, target, tool_status"))
                }
                return board.task(.taskUpdate(update), key: key("task_update", arguments))
            }
        })

    static let handover = Tool(
        name: "task_handover", title: "Hand over to the person and wait",
        description:
            "Asks the person for something on the phone (the card shows step as what they must do, and alerts) and "
            + "blocks until they answer: outcome done (they did it), refuse (they will not), stop (they want the "
            + "task stopped: stop, then end it canceled), timeout (no answer within timeout_seconds; the request "
            + "stays on the card) or ended (the task ended meanwhile). A stop is noticed within 2 s, an answer at "
            + "once. If the board goes away the call fails at once with its reason.",
        inputSchema: object(
            [
                "request_id": identifier("The task, from task_start."),
                "step": text("What the person must do, e.g. Enter the Wi-Fi password (at most 500 characters)."),
                "timeout_seconds": .object([
                    "type": "integer", "minimum": .number("0"), "maximum": .number("3600"), "default": .number("300"),
                    "description": "How long to wait for the answer, in seconds.",
                ]),
                "idempotency_key": key,
            ], required: ["request_id", "step"]),
        outputSchema: object(
            [
                "outcome": .object([
                    "type": "string", "enum": .array(["done", "refuse", "stop", "timeout", "ended"]),
                    "description": "What the person answered, or why there is no answer.",
                ]),
                "task": snapshotSchema,
            ], required: ["outcome", "task"]),
        run: { arguments, board in
            read(arguments, "task_handover").flatMap { values -> Result<JSONValue, Failure> in
                guard let id = values.text("request_id"), let step = values.text("step") else {
                    return .failure(.arguments("request_id and step are required"))
                }
                let seconds = values.integer("timeout_seconds") ?? 300
                let ask = Command.Update(
                    requestID: id, step: step, phase: .waitingUser, action: "request_user_input")
                let asked = key("task_handover", arguments)
                return board.task(.taskUpdate(ask), key: asked).flatMap { answer in
                    // Still holding the answer to an earlier request: the task was waiting already, so this ask
                    // was no new request for input. Back to work for a moment, then ask anew (which clears it).
                    guard Self.recordedAnswer(answer, in: "task").map({ $0 == "done" || $0 == "refuse" }) ?? false
                    else { return .success(answer) }
                    let resume = Command.Update(requestID: id, phase: .acting)
                    return board.task(.taskUpdate(resume), key: asked + ":resume").flatMap { _ in
                        board.task(.taskUpdate(ask), key: asked + ":again")
                    }
                }.flatMap { _ in waitForAnswer(id, seconds: seconds, board) }
            }
        })

    static let end = Tool(
        name: "task_end", title: "End a task",
        description:
            "Ends the task as completed, failed (with error) or canceled; final. dismiss_after_seconds says how long "
            + "the ended card stays on the phone: 0 takes it off at once, absent leaves it for the board's retention.",
        inputSchema: object(
            [
                "request_id": identifier("The task, from task_start."),
                "status": .object([
                    "type": "string", "enum": .array(["completed", "failed", "canceled"]),
                    "description": "How it ended.",
                ]),
                "error": text("What went wrong, for failed (at most 1000 characters)."),
                "dismiss_after_seconds": .object([
                    "type": "integer", "minimum": .number("0"), "maximum": .number("86400"),
                    "description": "Seconds the ended card stays on the phone (0: at once).",
                ]),
                "idempotency_key": key,
            ], required: ["request_id", "status"]),
        outputSchema: taskOutput,
        run: { arguments, board in
            read(arguments, "task_end").flatMap { values -> Result<JSONValue, Failure> in
                guard let name = values.text("status"), let status = TaskStatus(rawValue: name), status.isTerminal
                else { return .failure(.arguments("status must be one of completed, failed, canceled")) }
                let end = Command.End(
                    requestID: values.text("request_id") ?? "", status: status, error: values.text("error"),
                    dismissAfterSeconds: values.integer("dismiss_after_seconds").map(UInt64.init))
                return board.task(.taskEnd(end), key: key("task_end", arguments))
            }
        })

    static let heartbeat = Tool(
        name: "task_heartbeat", title: "Tell the board the agent is still at work",
        description:
            "News without a change: keeps a task the agent is quietly working on from being shown as stale, "
            + "and from being ended as abandoned. Safe to repeat.",
        inputSchema: object(["request_id": identifier("The task, from task_start.")], required: ["request_id"]),
        outputSchema: taskOutput,
        run: { arguments, board in
            read(arguments, "task_heartbeat").flatMap { values in
                board.task(.taskHeartbeat(requestID: values.text("request_id") ?? ""), key: "")
            }
        })

    static let list = Tool(
        name: "task_list", title: "List the tasks",
        description: "The tasks the board holds, most recently changed first (ended ones until their card leaves).",
        inputSchema: object([:], required: []),
        outputSchema: object(["tasks": .object(["type": "array", "items": snapshotSchema])], required: ["tasks"]),
        run: { arguments, board in
            read(arguments, "task_list").flatMap { _ -> Result<JSONValue, Failure> in
                guard let request = Command.taskList.request(idempotencyKey: "") else { preconditionFailure("a read") }
                return board.send(request, as: .taskList).flatMap { members in
                    guard case .array? = members[.tasks] else {
                        return .failure(.board("unusable answer from aiden-board: no tasks list"))
                    }
                    return .success(.object(["tasks": members[.tasks] ?? .array([])]))
                }
            }
        })

    static let status = Tool(
        name: "task_status", title: "Show a task",
        description:
            "The task as the board holds it now: status, phase, step, progress, and the person's latest answer "
            + "(answer: stop, done or refuse, or null).",
        inputSchema: object(["request_id": identifier("The task, from task_start.")], required: ["request_id"]),
        outputSchema: taskOutput,
        run: { arguments, board in
            read(arguments, "task_status").flatMap { values in
                board.task(.taskShow(requestID: values.text("request_id") ?? ""), key: "")
            }
        })

    /// `task_handover`'s wait: the board's wait for an answer, in holds of at most 2 s so a stop (which is no
    /// answer) is seen within that; `seconds` in all.
    static func waitForAnswer(_ id: String, seconds: Int, _ board: Board) -> Result<JSONValue, Failure> {
        let wait = TaskWait(requestID: id, target: .answer)
        var left = seconds
        while true {
            let hold = min(left, 2)
            let request = wait.request(holdingFor: hold)
            let command = Command.taskWait(Command.Wait(requestID: id, target: .answer))
            let answer = board.send(request, as: command)
            guard case let .success(members) = answer else { return answer.map { .object($0) } }
            let task = members[.liveActivity] ?? .null
            let recorded = recordedAnswer(.object(members), in: EnvelopeKey.liveActivity.rawValue)
            let outcome: String?
            switch members[.outcome] {
            case .string("came")?: outcome = recorded ?? "done"
            case .string("ended")?: outcome = "ended"
            case .string("timeout")?: outcome = recorded == "stop" ? "stop" : left <= hold ? "timeout" : nil
            default: return .failure(.board("unusable answer from aiden-board: no outcome in the wait's answer"))
            }
            if let outcome { return .success(.object(["outcome": .string(outcome), "task": task])) }
            left -= hold
        }
    }

    /// The person's answer (`stop`, `done`, `refuse`) on the task under `member` of `value`, if any.
    static func recordedAnswer(_ value: JSONValue, in member: String) -> String? {
        guard case let .object(members) = value, case let .object(snapshot)? = members[member],
            case let .object(given)? = snapshot["answer"], case let .string(name)? = given["answer"]
        else { return nil }
        return name
    }

    // MARK: Schemas

    static let snapshotSchema: JSONValue = .object([
        "type": "object",
        "description": "The task as the board holds it (docs/protocol.md section 4).",
        "properties": .object([
            "request_id": .object(["type": "string"]),
            "status": .object(["type": "string"]),
            "phase": .object(["type": "string"]),
            "task_title": .object(["type": "string"]),
            "current_step": .object(["type": "string"]),
            "progress": .object(["type": "number"]),
            "revision": .object(["type": "integer"]),
        ]),
        "required": .array(["request_id", "status"]),
    ])

    static let taskOutput = object(["task": snapshotSchema], required: ["task"])

    static let phase: JSONValue = .object([
        "type": "string",
        "enum": .array(TaskPhase.allCases.map { .string($0.rawValue) }),
        "description": "What kind of work the agent does now.",
    ])

    static let progress: JSONValue = .object([
        "type": "number", "minimum": .number("0"), "maximum": .number("1"),
        "description": "How far the task is, from 0 to 1.",
    ])

    static let key: JSONValue = .object([
        "type": "string", "minLength": .number("1"), "maxLength": .number("255"),
        "description": "Makes a deliberate repeat of an identical call count (default: derived from the call).",
    ])

    static func text(_ description: String) -> JSONValue {
        .object(["type": "string", "description": .string(description)])
    }

    static func identifier(_ description: String) -> JSONValue {
        .object([
            "type": "string", "pattern": .string("^[A-Za-z0-9._:-]{1,128}$"), "description": .string(description),
        ])
    }

    static func flag(_ description: String) -> JSONValue {
        .object(["type": "boolean", "description": .string(description)])
    }

    static func object(_ properties: [String: JSONValue], required: [String]) -> JSONValue {
        .object([
            "type": "object", "properties": .object(properties), "required": .array(required.map { .string($0) }),
            "additionalProperties": .bool(false),
        ])
    }

    /// The arguments checked against the tool's input schema: known names, the right types, the required ones.
    static func read(_ arguments: [String: JSONValue], _ tool: String) -> Result<Values, Failure> {
        guard let schema = all.first(where: { $0.name == tool })?.inputSchema,
            case let .object(members) = schema, case let .object(properties)? = members["properties"],
            case let .array(required)? = members["required"]
        else { return .failure(.arguments("no such tool")) }
        for name in arguments.keys.sorted() {
            guard case let .object(rule)? = properties[name], case let .string(type)? = rule["type"] else {
                return .failure(.arguments("unknown argument \(name)"))
            }
            let value = arguments[name] ?? .null
            let fits: Bool
            switch (type, value) {
            case ("string", .string(let text)):
                if case let .array(names)? = rule["enum"] { fits = names.contains(.string(text)) } else { fits = true }
            case ("boolean", .bool): fits = true
            case ("number", .number(let text)): fits = Double(text).map { $0 >= 0 && $0 <= 1 } ?? false
            case ("integer", .number(let text)):
                let maximum = rule["maximum"]?.unsignedInteger ?? UInt64.max
                fits = UInt64(text).map { $0 <= maximum } ?? false
            default: fits = false
            }
            guard fits else { return .failure(.arguments("\(name) must be \(describe(rule))")) }
        }
        for case let .string(name) in required where arguments[name] == nil {
            return .failure(.arguments("\(name) is required"))
        }
        return .success(Values(members: arguments))
    }

    private static func describe(_ rule: [String: JSONValue]) -> String {
        if case let .array(names)? = rule["enum"] {
            return "one of "
                + names.compactMap { if case let .string(name) = $0 { name } else { nil } }
                .joined(separator: ", ")
        }
        switch rule["type"] {
        case .string("number")?: return "a number from 0 to 1"
        case .string("integer")?: return "a whole number from 0 to \(rule["maximum"]?.unsignedInteger ?? 0)"
        case .string("boolean")?: return "true or false"
        default: return "a string"
        }
    }

    /// Arguments that passed `read`.
    struct Values {
        let members: [String: JSONValue]

        func text(_ name: String) -> String? {
            if case let .string(value)? = members[name] { value } else { nil }
        }

        func flag(_ name: String) -> Bool? {
            if case let .bool(value)? = members[name] { value } else { nil }
        }

        func number(_ name: String) -> Double? { members[name]?.double }

        func integer(_ name: String) -> Int? { members[name]?.unsignedInteger.map { Int(clamping: $0) } }

        func phase() -> TaskPhase? { text("phase").flatMap(TaskPhase.init(rawValue:)) }
    }
}
