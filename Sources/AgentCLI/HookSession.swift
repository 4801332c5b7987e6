import Logging
import WireFormat

/// How a coding agent's session becomes a task on the board: the pure mapping from one hook event and what the
/// session's earlier hooks left (`HookState`) to the writes to send, with the time passed in. One session is one
/// task (`requestID`): its start starts it, tool news sets its step at most once every `stepIntervalSeconds`
/// (the same step again only as a heartbeat after `heartbeatIntervalSeconds`), a notification hands over to the
/// person, a permission request asks them (`HookRunner` holds the wait), the end of the agent's answer or of the
/// session ends it completed. News after the end (the person's next prompt) starts the session's next task.
package enum HookSession {
    package static let stepIntervalSeconds: Double = 2
    package static let heartbeatIntervalSeconds: Double = 30
    /// The most characters of agent text on the card (the board takes 500 for a step; a card shows far fewer).
    package static let stepLimit = 160

    /// One write after the start.
    package enum Write: Sendable, Equatable {
        /// The fields to change (nil: unchanged; "": cleared).
        case update(step: String?, phase: TaskPhase?, action: String?, tool: String?)
        case heartbeat
        case end(TaskStatus)
    }

    package struct Plan: Sendable, Equatable {
        /// The task to start first (its request id comes from the state's generation) when `needsStart`, and again
        /// should the board no longer hold the task; it carries the event's own fields.
        package var start: Command.Start?
        package var needsStart = false
        package var writes: [Write] = []
        /// A permission request: what the card asks ("Allow Bash: rm -rf build?").
        package var question: String?
        /// The state once the writes are done.
        package var state: HookState

        package init(
            start: Command.Start? = nil, needsStart: Bool = false, writes: [Write] = [], question: String? = nil,
            state: HookState
        ) {
            self.start = start
            self.needsStart = needsStart
            self.writes = writes
            self.question = question
            self.state = state
        }
    }

    /// The action that makes a waiting task a request for the person's input (the phone alerts once).
    package static let requestUserInput = "request_user_input"

    package static func plan(_ event: HookEvent, state old: HookState, now: Double) -> Plan {
        var state = old
        switch event.kind {
        case .other:
            return Plan(state: old)
        case .stopped, .sessionEnd:
            guard state.started, !state.ended else { return Plan(state: old) }
            state.ended = true
            state.waiting = false
            state.lastWriteAt = now
            return Plan(writes: [.end(.completed)], state: state)
        default:
            break
        }
        if state.ended {
            state = HookState()
            state.generation = old.generation + 1
        }
        let resume = state.waiting ? "" : nil
        let change: (step: String, phase: TaskPhase, action: String?, tool: String?)
        var question: String?
        switch event.kind {
        case .sessionStart: change = ("Session started", .planning, nil, nil)
        case .promptSubmitted: change = ("Working on the prompt", .planning, resume, nil)
        case .toolStarting, .toolFinished, .permissionRequest:
            change = (toolStep(event), .acting, resume, event.toolName.map { line($0, limit: 100) })
            if event.kind == .permissionRequest { question = line("Allow \(toolStep(event))?") }
        case .notification:
            change = (event.message.map { line($0) } ?? "Waiting for you", .waitingUser, requestUserInput, nil)
        case .turnComplete:
            change = (event.message.map { line($0) } ?? "Your turn", .waitingUser, requestUserInput, nil)
        case .other, .stopped, .sessionEnd:
            return Plan(state: old)  // handled above
        }
        let start = Command.Start(
            title: title(event), step: change.step, phase: change.phase,
            action: change.action.flatMap { $0.isEmpty ? nil : $0 }, tool: change.tool)
        let write = Write.update(step: change.step, phase: change.phase, action: change.action, tool: change.tool)
        var plan = Plan(start: start, question: question, state: state)
        let elapsed = state.lastWriteAt.map { now - $0 }.flatMap { $0 < 0 ? nil : $0 } ?? .infinity
        if !state.started {
            plan.needsStart = true
        } else if question != nil {
            // HookRunner asks itself: the question, with the care a repeated request for input needs.
        } else {
            switch event.kind {
            case .sessionStart:
                return Plan(state: state)  // a resumed or compacted session: the task goes on
            case .notification, .turnComplete:
                if state.waiting && state.lastStep == change.step { return Plan(state: state) }
                plan.writes = [write]
            case .toolStarting, .toolFinished:
                if state.waiting {
                    plan.writes = [write]
                } else if state.lastStep == change.step {
                    guard elapsed >= heartbeatIntervalSeconds else { return Plan(state: state) }
                    plan.writes = [.heartbeat]
                } else {
                    guard elapsed >= stepIntervalSeconds else { return Plan(state: state) }
                    plan.writes = [write]
                }
            default:
                plan.writes = [write]
            }
        }
        plan.state.started = true
        plan.state.waiting = change.phase == .waitingUser || question != nil
        plan.state.lastStep = question ?? change.step
        plan.state.lastWriteAt = now
        return plan
    }

    /// The session's task: `claude-` or `codex-` and the session's id when it meets the request-id rule (Claude
    /// Code's and Codex's are UUIDs), else a digest of it; `.N` for the session's Nth task. The same session always
    /// names the same task, whichever hook process asks.
    package static func requestID(_ event: HookEvent, generation: UInt64) -> String {
        let session =
            event.session.utf8.count <= 100 && IdentifierRule.isValid(event.session)
            ? event.session : "h" + IdempotencyKey.digest(event.session)
        return "\(event.agent.rawValue)-\(session)" + (generation > 1 ? ".\(generation)" : "")
    }

    /// The name of the session's state: its first task's request id (a valid file name).
    package static func stateKey(_ event: HookEvent) -> String { requestID(event, generation: 1) }

    /// "Bash: make test", "Edit: main.c", or the tool's name alone.
    package static func toolStep(_ event: HookEvent) -> String {
        let tool = event.toolName ?? "a tool"
        return line(event.toolSubject.map { "\(tool): \($0)" } ?? tool)
    }

    /// "Claude Code: project" (the working directory's last component).
    static func title(_ event: HookEvent) -> String {
        let agent = event.agent == .claude ? "Claude Code" : "Codex"
        guard let name = event.cwd?.split(separator: "/").last, !name.isEmpty else { return agent }
        return line("\(agent): \(name)", limit: 100)
    }

    /// The agent's text as one line for the card (`ControlCharacter.readable`): control characters and runs of
    /// white space become one space, bidi and format characters go (the board refuses bidi controls), and a
    /// longer text is cut between characters to `limit` Unicode scalars, the board's unit, with an ellipsis
    /// (`ControlCharacter.bounded`).
    package static func line(_ text: String, limit: Int = stepLimit) -> String {
        var out = ""
        var space = false
        for scalar in ControlCharacter.readable(text).unicodeScalars {
            if scalar.properties.isWhitespace {
                space = !out.isEmpty
                continue
            }
            if space { out.unicodeScalars.append(" ") }
            space = false
            out.unicodeScalars.append(scalar)
        }
        return ControlCharacter.bounded(out, limit: limit)
    }
}
