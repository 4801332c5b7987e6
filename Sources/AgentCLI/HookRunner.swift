import FoundationEssentials
import WireFormat

/// Where the sessions' `HookState` lives between hook processes. The executable keeps each in a small file,
/// held against the session's other hooks while `body` runs; tests keep it in memory.
package protocol HookStateStore {
    func withState<Result>(_ key: String, _ body: (inout HookState) -> Result) -> Result
}

/// `aidenctl hook claude|codex`: one event read, `HookSession`'s plan sent to the board, and for a permission
/// request the person's answer waited for and printed as Claude Code's decision. Whatever happens it exits 0:
/// a hook must never fail the agent's session, so the board's absence or refusal is one line on stderr, and no
/// answer from the person prints nothing (Claude Code then asks in the terminal). It never approves by itself.
/// The board is behind `AgentTransport` and the time is passed in, so every path runs in memory.
package struct HookRunner {
    package let socketPath: String
    package let transport: any AgentTransport
    package let store: any HookStateStore
    /// Fresh per invocation: the base of this hook's writes' idempotency keys.
    package let idempotencyKey: String

    package init(socketPath: String, transport: any AgentTransport, store: any HookStateStore, idempotencyKey: String) {
        self.socketPath = socketPath
        self.transport = transport
        self.store = store
        self.idempotencyKey = idempotencyKey
    }

    /// The person's answer to a permission request.
    package enum Verdict: String, Sendable, Equatable {
        case allow
        case deny
        /// Deny, and interrupt the agent: the person asked from the phone to stop the task.
        case stop
    }

    /// Runs `hook` on its input (Claude Code's stdin; Codex's event is in `hook.payload`) at `now` (seconds).
    package func run(_ hook: Command.Hook, input: [UInt8], now: Double) -> CLIOutcome {
        let event: HookEvent
        do throws(HookEvent.InputError) {
            event = hook.agent == .claude ? try HookEvent.claude(input) : try HookEvent.codex(hook.payload ?? "")
        } catch {
            return Self.note("\(error.description); nothing sent")
        }
        let asked = store.withState(HookSession.stateKey(event)) { state -> Result<String?, CLIFailure> in
            let plan = HookSession.plan(event, state: state, now: now)
            var next = plan.state
            let applied = apply(plan, event: event, state: &next)
            if case .success = applied { state = next }
            return applied
        }
        switch asked {
        case let .failure(failure):
            return Self.note(failure.message)
        case .success(nil):
            return CLIOutcome(exitCode: .ok)
        case let .success(id?):
            return decide(event, requestID: id, timeoutSeconds: Int(clamping: hook.timeoutSeconds), now: now)
        }
    }

    /// Claude Code's decision for a permission request (its documented `hookSpecificOutput`), one line.
    package static func decision(_ verdict: Verdict) -> String {
        var decision: [String: JSONValue] = ["behavior": .string(verdict == .allow ? "allow" : "deny")]
        if verdict == .deny { decision["message"] = "Refused on the phone" }
        if verdict == .stop {
            decision["message"] = "Stopped from the phone"
            decision["interrupt"] = .bool(true)
        }
        let output: JSONValue = .object([
            "hookSpecificOutput": .object([
                "hookEventName": "PermissionRequest", "decision": .object(decision),
            ])
        ])
        return JSONText.sortedLine(output) + "\n"
    }

    // MARK: The writes

    /// Sends the plan; for a permission request also the question. The request id asked about, if one was.
    private func apply(
        _ plan: HookSession.Plan, event: HookEvent, state: inout HookState
    ) -> Result<
        String?, CLIFailure
    > {
        var result: Result<Void, CLIFailure> = .success(())
        if plan.needsStart, let start = plan.start { result = begin(start, event: event, state: &state) }
        for (index, write) in plan.writes.enumerated() {
            guard case .success = result else { break }
            result = send(write, event: event, state: &state, key: "\(idempotencyKey):\(index)")
            // The board no longer holds a task to write to (it ended, or was forgotten): start the next one.
            if case let .failure(.daemon(status, _, _)) = result, status == 404 || status == 409,
                case .update = write, let start = plan.start
            {
                if status == 409 { state.generation += 1 }
                result = begin(start, event: event, state: &state)
            }
        }
        guard case .success = result else { return result.map { nil } }
        guard let question = plan.question else { return .success(nil) }
        let id = HookSession.requestID(event, generation: state.generation)
        return ask(question, requestID: id).map { id }
    }

    /// Starts the session's task; when its request id is taken by a task that ended (a session whose state was
    /// lost), the next one. A task of that id still running is the session's: used as it is.
    private func begin(_ start: Command.Start, event: HookEvent, state: inout HookState) -> Result<Void, CLIFailure> {
        var failure = CLIFailure.badAnswer("no task could be started", socketPath: socketPath)
        for _ in 0..<4 {
            var start = start
            let id = HookSession.requestID(event, generation: state.generation)
            start.requestID = id
            let command = Command.taskStart(start)
            switch send(command, key: start.idempotencyKey(fallback: idempotencyKey)) {
            case let .success(task):
                if !Self.hasEnded(task) { return .success(()) }
            case let .failure(refused):
                guard case .daemon(409, _, _) = refused else { return .failure(refused) }
                failure = refused
                let shown = send(.taskShow(requestID: id), key: "")
                if case let .success(task) = shown, !Self.hasEnded(task) { return .success(()) }
            }
            state.generation += 1
        }
        return .failure(failure)
    }

    private func send(
        _ write: HookSession.Write, event: HookEvent, state: inout HookState, key: String
    ) -> Result<
        Void, CLIFailure
    > {
        let id = HookSession.requestID(event, generation: state.generation)
        let command: Command =
            switch write {
            case let .update(step, phase, action, tool):
                .taskUpdate(Command.Update(requestID: id, step: step, phase: phase, action: action, tool: tool))
            case .heartbeat: .taskHeartbeat(requestID: id)
            case let .end(status): .taskEnd(Command.End(requestID: id, status: status))
            }
        return send(command, key: key).map { _ in () }
    }

    /// Hands over with the question. A task still holding the answer to an earlier request was waiting already, so
    /// that answer would count for this one: back to work for a moment, then ask anew (which clears it), as
    /// `task_handover` does.
    private func ask(_ question: String, requestID id: String) -> Result<Void, CLIFailure> {
        let ask = Command.taskUpdate(
            Command.Update(
                requestID: id, step: question, phase: .waitingUser, action: HookSession.requestUserInput))
        return send(ask, key: idempotencyKey + ":ask").flatMap { task -> Result<Void, CLIFailure> in
            guard let answer = Self.answer(task), answer == "done" || answer == "refuse" else { return .success(()) }
            let resume = Command.taskUpdate(Command.Update(requestID: id, phase: .acting))
            return send(resume, key: idempotencyKey + ":resume").flatMap { _ in
                send(ask, key: idempotencyKey + ":again").map { _ in () }
            }
        }
    }

    /// One request: the answer's `live_activity`, or why there is none.
    private func send(_ command: Command, key: String) -> Result<[String: JSONValue], CLIFailure> {
        guard let request = command.request(idempotencyKey: key) else { preconditionFailure("a request") }
        return exchange(request, command: command)
    }

    private func exchange(_ request: AgentRequest, command: Command) -> Result<[String: JSONValue], CLIFailure> {
        let invocation = Invocation(socketPath: socketPath, command: command)
        return AgentCLI.exchange(request, invocation: invocation, transport: transport).flatMap { response in
            let body = Data(response.body)
            let parsed = (try? JSONDecoder().decode(JSONValue.self, from: body)).flatMap { $0.isReadable ? $0 : nil }
            guard (200..<300).contains(response.status) else {
                let error = (try? JSONDecoder().decode(ErrorAnswer.self, from: body))?.error
                return .failure(
                    .daemon(status: response.status, error: error, request: "\(request.method) \(request.path)"))
            }
            guard case let .object(members)? = parsed, case let .object(task)? = members[.liveActivity] else {
                return .failure(.badAnswer("no live_activity in the answer", socketPath: socketPath))
            }
            var result = task
            if case let .string(outcome)? = members["outcome"] { result[Self.outcomeMember] = .string(outcome) }
            return .success(result)
        }
    }

    /// Where `exchange` keeps a wait's `outcome` beside the task's members (no snapshot member starts with a space).
    private static let outcomeMember = " outcome"

    private static func hasEnded(_ task: [String: JSONValue]) -> Bool {
        guard case let .string(name)? = task[SnapshotKey.status.stringValue] else { return false }
        return TaskStatus(rawValue: name)?.isTerminal ?? false
    }

    /// The person's answer on the task (`stop`, `done`, `refuse`), if any.
    private static func answer(_ task: [String: JSONValue]) -> String? {
        guard case let .object(given)? = task[SnapshotKey.answer.stringValue], case let .string(name)? = given["answer"]
        else { return nil }
        return name
    }

    // MARK: The person's answer

    /// Holds the board's wait for the answer (2 s at a time, so a stop, which is no answer, is seen too) until
    /// `timeoutSeconds` pass, then prints the decision and puts the card back to work.
    private func decide(_ event: HookEvent, requestID id: String, timeoutSeconds: Int, now: Double) -> CLIOutcome {
        let wait = TaskWait(requestID: id, target: .answer)
        let command = Command.taskWait(Command.Wait(requestID: id, target: .answer))
        var left = timeoutSeconds
        var verdict: Verdict?
        while verdict == nil {
            let hold = min(left, 2)
            let request = wait.request(holdingFor: hold)
            let answer = exchange(request, command: command)
            guard case let .success(task) = answer else {
                if case let .failure(failure) = answer { return Self.note(failure.message + "; Claude Code asks") }
                return CLIOutcome(exitCode: .ok)
            }
            let recorded = Self.answer(task)
            switch task[Self.outcomeMember] {
            case .string("came")?: verdict = recorded == "refuse" ? .deny : recorded == "done" ? .allow : nil
            case .string("ended")?: return Self.note("the task ended before the person answered; Claude Code asks")
            default: if recorded == "stop" { verdict = .stop }
            }
            if verdict == nil {
                if left <= hold {
                    return Self.note("no answer on the phone within \(timeoutSeconds) s; Claude Code asks")
                }
                left -= hold
            }
        }
        guard let verdict else { return CLIOutcome(exitCode: .ok) }
        let step = HookSession.toolStep(event)
        let written = store.withState(HookSession.stateKey(event)) { state -> Result<Void, CLIFailure> in
            var next = state
            let write: HookSession.Write
            switch verdict {
            case .allow: write = .update(step: step, phase: .acting, action: "", tool: nil)
            case .deny:
                write = .update(step: HookSession.line("Refused: " + step), phase: .planning, action: "", tool: nil)
            case .stop: write = .end(.canceled)
            }
            next.waiting = false
            next.ended = verdict == .stop
            next.lastStep = step
            next.lastWriteAt = now
            let sent = send(write, event: event, state: &next, key: idempotencyKey + ":after")
            if case .success = sent { state = next }
            return sent
        }
        var outcome = CLIOutcome(standardOutput: Self.decision(verdict), exitCode: .ok)
        if case let .failure(failure) = written { outcome.standardError = "aidenctl hook: " + failure.message + "\n" }
        return outcome
    }

    /// A hook's note on stderr; the exit status stays 0, so the agent goes on.
    private static func note(_ text: String) -> CLIOutcome {
        CLIOutcome(standardError: "aidenctl hook: " + text + "\n", exitCode: .ok)
    }
}
