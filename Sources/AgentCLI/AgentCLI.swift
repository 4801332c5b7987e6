import CommandLineSyntax
import FoundationEssentials
import WireFormat

/// aidenctl as a function: argv and environment in, what to print and the exit status out. The socket is
/// behind `AgentTransport` and the idempotency key is passed in, so every path is testable in memory.
/// `task run` and `events --follow` also need a process and a clock: the executable drives those with the
/// pieces here (`exchange`, `answer`, `EventsCursor`, `RunTermination`).
package enum AgentCLI {
    package static func run(
        arguments: [String], environment: [String: String], idempotencyKey: String, version: String,
        transport: some AgentTransport
    ) -> CLIOutcome {
        switch parse(arguments, environment: environment, version: version) {
        case let .done(outcome):
            return outcome
        case let .invocation(invocation):
            return perform(invocation, idempotencyKey: idempotencyKey, transport: transport)
        }
    }

    /// A command line read: the invocation to carry out, or what to print instead.
    package enum Parsed: Sendable, Equatable {
        case invocation(Invocation)
        /// A usage error, help or the version: printed without touching the socket.
        case done(CLIOutcome)
    }

    package static func parse(_ arguments: [String], environment: [String: String], version: String) -> Parsed {
        let invocation: Invocation
        do {
            invocation = try CommandLineParser.parse(arguments, environment: environment)
        } catch {
            return .done(CLIOutcome(failure: .usage(error), json: false))
        }
        switch invocation.command {
        case let .help(topic): return .done(CLIOutcome(standardOutput: topic.usage, exitCode: .ok))
        case .version: return .done(CLIOutcome(standardOutput: "aidenctl \(version)\n", exitCode: .ok))
        case let .completion(shell):
            return .done(CLIOutcome(standardOutput: shell.script(for: .aidenctl), exitCode: .ok))
        default: return .invocation(invocation)
        }
    }

    /// One exchange with the daemon and its output. For `task run` that is only its start, for
    /// `events --follow` only the first page, for `task wait` only the board's wait held for no time (an answer
    /// already recorded is printed): the executable does the rest.
    package static func perform(
        _ invocation: Invocation, idempotencyKey: String, transport: some AgentTransport
    ) -> CLIOutcome {
        guard let request = invocation.command.request(idempotencyKey: idempotencyKey) else {
            return CLIOutcome(exitCode: .ok)
        }
        switch exchange(request, invocation: invocation, transport: transport) {
        case let .failure(failure):
            return CLIOutcome(failure: failure, json: invocation.json)
        case let .success(response):
            return outcome(of: invocation, request: request, response: response)
        }
    }

    /// Sends `request`, once more after a lost connection when the command's requests are safe to repeat.
    package static func exchange(
        _ request: AgentRequest, invocation: Invocation, transport: some AgentTransport
    ) -> Result<AgentResponse, CLIFailure> {
        var result = transport.send(request, socketPath: invocation.socketPath)
        if case .failure(.connectionLost) = result, invocation.command.retriesAfterConnectionLoss {
            // Same request, same idempotency key: a write the daemon already applied is answered, not repeated.
            result = transport.send(request, socketPath: invocation.socketPath)
        }
        return result.mapError { .transport($0, socketPath: invocation.socketPath) }
    }

    /// The task in a write's or a show's answer, or why the answer is refused or unusable.
    package static func answer(
        _ response: AgentResponse, to request: AgentRequest, invocation: Invocation
    ) -> Result<SnapshotView, CLIFailure> {
        switch read(response, to: request, socketPath: invocation.socketPath) {
        case let .failure(refusal):
            return .failure(refusal.failure)
        case let .success((_, body)):
            guard let snapshot = (try? JSONDecoder().decode(ResponseEnvelopes.Snapshot.self, from: body))?.liveActivity
            else { return .failure(.badAnswer("no live_activity in the answer", socketPath: invocation.socketPath)) }
            return .success(snapshot)
        }
    }

    /// The next page of `events --follow` read into `cursor`, or why the answer is refused or unusable.
    package static func page(
        _ response: AgentResponse, to request: AgentRequest, invocation: Invocation, cursor: inout EventsCursor
    ) -> Result<EventsCursor.Page, CLIFailure> {
        switch read(response, to: request, socketPath: invocation.socketPath) {
        case let .failure(refusal):
            return .failure(refusal.failure)
        case let .success((value, _)):
            guard let page = cursor.read(value, json: invocation.json) else {
                return .failure(.badAnswer(EventsCursor.notAPage, socketPath: invocation.socketPath))
            }
            return .success(page)
        }
    }

    /// What the board answered a wait (`TaskWait.request(holdingFor:)`): the decision, nil when the wait's timeout
    /// passed first, or why the answer is refused or unusable.
    package static func waited(
        _ response: AgentResponse, to request: AgentRequest, invocation: Invocation, wait: TaskWait
    ) -> Result<TaskWait.Decision?, CLIFailure> {
        switch read(response, to: request, socketPath: invocation.socketPath) {
        case let .failure(refusal):
            return .failure(refusal.failure)
        case let .success((value, body)):
            guard case let .object(members) = value, case let .string(name)? = members["outcome"],
                let outcome = WaitOutcome(rawValue: name),
                let task = (try? JSONDecoder().decode(ResponseEnvelopes.Snapshot.self, from: body))?.liveActivity
            else { return .failure(.badAnswer(TaskWait.notAWait, socketPath: invocation.socketPath)) }
            return .success(wait.decision(outcome, task: task))
        }
    }

    /// A non-2xx answer (with the daemon's error object, when it sent one) or an unusable one.
    private struct Refusal: Error {
        var failure: CLIFailure
        var daemonObject: String?
    }

    /// A 2xx answer holding a JSON object: the value and the body.
    private static func read(
        _ response: AgentResponse, to request: AgentRequest, socketPath: String
    ) -> Result<(JSONValue, Data), Refusal> {
        let body = Data(response.body)
        // A value with a number beyond Double's range is no more usable than one that is not JSON.
        let parsed = (try? JSONDecoder().decode(JSONValue.self, from: body)).flatMap { $0.isReadable ? $0 : nil }
        let isObject = if case .object = parsed { true } else { false }
        guard (200..<300).contains(response.status) else {
            let error = isObject ? (try? JSONDecoder().decode(ErrorAnswer.self, from: body))?.error : nil
            let failure = CLIFailure.daemon(
                status: response.status, error: error, request: "\(request.method) \(request.path)")
            return .failure(Refusal(failure: failure, daemonObject: isObject ? JSONText.compact(response.body) : nil))
        }
        guard let parsed, isObject else {
            return .failure(Refusal(failure: .badAnswer("not a JSON object", socketPath: socketPath)))
        }
        return .success((parsed, body))
    }

    static func outcome(of invocation: Invocation, request: AgentRequest, response: AgentResponse) -> CLIOutcome {
        switch read(response, to: request, socketPath: invocation.socketPath) {
        case let .failure(refusal):
            return CLIOutcome(failure: refusal.failure, json: invocation.json, daemonObject: refusal.daemonObject)
        case let .success((value, body)):
            switch success(invocation, value: value, body: body, raw: response.body) {
            case let .success(text):
                return CLIOutcome(standardOutput: text.output, standardError: text.notes, exitCode: .ok)
            case let .failure(problem):
                return CLIOutcome(
                    failure: .badAnswer(problem.detail, socketPath: invocation.socketPath),
                    json: invocation.json)
            }
        }
    }

    private struct Problem: Error {
        var detail: String
    }

    private static func success(
        _ invocation: Invocation, value: JSONValue, body: Data, raw: [UInt8]
    ) -> Result<(output: String, notes: String), Problem> {
        if case let .events(events) = invocation.command {
            var cursor = EventsCursor(since: events.since)
            guard let page = cursor.read(value, json: invocation.json) else {
                return .failure(Problem(detail: EventsCursor.notAPage))
            }
            return .success((page.standardOutput, page.standardError))
        }
        return text(invocation, value: value, body: body, raw: raw).map { ($0, "") }
    }

    private static func text(
        _ invocation: Invocation, value: JSONValue, body: Data, raw: [UInt8]
    ) -> Result<String, Problem> {
        let decoder = JSONDecoder()
        let json = invocation.json
        switch invocation.command {
        case .help, .version, .completion, .mcp, .hook:
            return .success("")
        case .taskStart, .taskRun:
            guard let snapshot = (try? decoder.decode(ResponseEnvelopes.Snapshot.self, from: body))?.liveActivity,
                let requestID = snapshot.requestID, !requestID.isEmpty
            else { return .failure(Problem(detail: "no live_activity.request_id in the answer")) }
            if invocation.quiet { return .success(TerminalText.escaped(requestID) + "\n") }
            guard json else { return .success(OutputFormatter.started(snapshot)) }
            var object = JSONText.compact(raw)
            if case let .object(members) = value, members["request_id"] == nil {
                object = JSONText.prepending(key: "request_id", value: requestID, to: object)
            }
            return .success(object + "\n")
        case .taskUpdate, .taskHeartbeat, .taskEnd, .taskShow:
            guard let snapshot = (try? decoder.decode(ResponseEnvelopes.Snapshot.self, from: body))?.liveActivity
            else { return .failure(Problem(detail: "no live_activity in the answer")) }
            if invocation.quiet { return .success("") }
            return .success(json ? JSONText.compact(raw) + "\n" : OutputFormatter.snapshot(snapshot))
        case .taskList:
            guard let tasks = (try? decoder.decode(ResponseEnvelopes.TaskList.self, from: body))?.tasks
            else { return .failure(Problem(detail: "no tasks list in the answer")) }
            return .success(json ? JSONText.compact(raw) + "\n" : OutputFormatter.taskList(tasks))
        case .events:
            return .success("")  // read by `success`
        case let .taskWait(wait):
            // Only the first answer, held for no time; the executable's `TaskWaiter` goes on from there.
            guard case let .object(members) = value, case let .string(name)? = members["outcome"],
                let outcome = WaitOutcome(rawValue: name),
                let snapshot = (try? decoder.decode(ResponseEnvelopes.Snapshot.self, from: body))?.liveActivity
            else { return .failure(Problem(detail: TaskWait.notAWait)) }
            guard
                case let .came(line, event)? = TaskWait(requestID: wait.requestID, target: wait.target).decision(
                    outcome, task: snapshot)
            else { return .success("") }
            return .success(TaskWait.output(line, event: event, json: json))
        case .status:
            if json { return .success(JSONText.compact(raw) + "\n") }
            return .success(StatusSummary.text(value) ?? OutputFormatter.statusFields(value))
        }
    }
}
