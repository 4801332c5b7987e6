import FoundationEssentials
import WireFormat

/// One event of a coding agent's hooks, read from what the agent sends (Claude Code: a JSON object on stdin;
/// Codex: a JSON object as its notify command's last argument). Only what the mapping needs is kept; every text
/// is the agent's, so it is made one line and bounded before it reaches a card (`HookSession.line`).
package struct HookEvent: Sendable, Equatable {
    package enum Kind: Sendable, Equatable {
        /// Claude Code's `SessionStart`.
        case sessionStart
        /// `UserPromptSubmit`: the person gave the agent work.
        case promptSubmitted
        /// `PreToolUse`.
        case toolStarting
        /// `PostToolUse`.
        case toolFinished
        /// `Notification`: the agent waits for the person (a permission prompt, or idle input).
        case notification
        /// `PermissionRequest`: the agent's permission dialog is about to be shown.
        case permissionRequest
        /// `Stop`: the agent finished its answer.
        case stopped
        /// `SessionEnd`.
        case sessionEnd
        /// Codex's `agent-turn-complete`.
        case turnComplete
        /// Any other event (`PreCompact`, `SubagentStop`, a Codex type not known here): changes nothing.
        case other(String)
    }

    package var agent: Command.Hook.Agent
    package var kind: Kind
    /// Claude Code's `session_id`, Codex's `thread-id`: what names the task.
    package var session: String
    package var cwd: String?
    package var toolName: String?
    /// What the tool works on: a Bash command, a file, a pattern, a URL.
    package var toolSubject: String?
    /// A notification's message, Codex's last assistant message.
    package var message: String?

    package init(
        agent: Command.Hook.Agent, kind: Kind, session: String, cwd: String? = nil, toolName: String? = nil,
        toolSubject: String? = nil, message: String? = nil
    ) {
        self.agent = agent
        self.kind = kind
        self.session = session
        self.cwd = cwd
        self.toolName = toolName
        self.toolSubject = toolSubject
        self.message = message
    }

    /// Why the agent's input cannot be read; the hook says so on stderr and changes nothing.
    package struct InputError: Error, Equatable, CustomStringConvertible {
        package var description: String
    }

    /// Claude Code's hook input: `hook_event_name`, `session_id`, `cwd`, and per event `tool_name` and
    /// `tool_input`, `message`.
    package static func claude(_ bytes: [UInt8]) throws(InputError) -> HookEvent {
        let members = try object(bytes, what: "Claude Code's hook input")
        guard case let .string(name)? = members["hook_event_name"] else {
            throw InputError(description: "no hook_event_name in Claude Code's hook input")
        }
        guard case let .string(session)? = members["session_id"], !session.isEmpty else {
            throw InputError(description: "no session_id in Claude Code's hook input")
        }
        let kind: Kind =
            switch name {
            case "SessionStart": .sessionStart
            case "UserPromptSubmit": .promptSubmitted
            case "PreToolUse": .toolStarting
            case "PostToolUse": .toolFinished
            case "Notification": .notification
            case "PermissionRequest": .permissionRequest
            case "Stop": .stopped
            case "SessionEnd": .sessionEnd
            default: .other(name)
            }
        let tool = string(members["tool_name"])
        return HookEvent(
            agent: .claude, kind: kind, session: session, cwd: string(members["cwd"]), toolName: tool,
            toolSubject: subject(of: tool, members["tool_input"], cwd: string(members["cwd"])),
            message: string(members["message"]))
    }

    /// Codex's notify argument: `type`, `thread-id` (older releases sent none: the working directory names the
    /// task then), `cwd`, `last-assistant-message`.
    package static func codex(_ text: String) throws(InputError) -> HookEvent {
        let members = try object(Array(text.utf8), what: "Codex's notify argument")
        guard case let .string(type)? = members["type"] else {
            throw InputError(description: "no type in Codex's notify argument")
        }
        let cwd = string(members["cwd"])
        guard let session = string(members["thread-id"]) ?? cwd.map({ "cwd:" + $0 }), !session.isEmpty else {
            throw InputError(description: "no thread-id or cwd in Codex's notify argument")
        }
        return HookEvent(
            agent: .codex, kind: type == "agent-turn-complete" ? .turnComplete : .other(type), session: session,
            cwd: cwd, message: string(members["last-assistant-message"]))
    }

    private static func object(_ bytes: [UInt8], what: String) throws(InputError) -> [String: JSONValue] {
        guard let value = try? JSONDecoder().decode(JSONValue.self, from: Data(bytes)), value.isReadable,
            case let .object(members) = value
        else { throw InputError(description: "\(what) is not a JSON object") }
        return members
    }

    private static func string(_ value: JSONValue?) -> String? {
        if case let .string(text)? = value, !text.isEmpty { text } else { nil }
    }

    /// The member of a tool's input that says what it works on, for the tools Claude Code has; a path inside the
    /// working directory is shown relative to it.
    private static func subject(of tool: String?, _ input: JSONValue?, cwd: String?) -> String? {
        guard case let .object(members)? = input else { return nil }
        let names = ["command", "file_path", "notebook_path", "path", "pattern", "url", "query", "description"]
        guard let text = names.lazy.compactMap({ string(members[$0]) }).first else { return nil }
        if let cwd, text.hasPrefix(cwd + "/") { return String(text.dropFirst(cwd.count + 1)) }
        return text
    }
}
