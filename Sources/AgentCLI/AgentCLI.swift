import FoundationEssentials
import WireFormat

/// aidenctl as a function: argv and environment in, what to print and the exit status out. The socket is
/// behind `AgentTransport` and the idempotency key is passed in, so every path is testable in memory.
package enum AgentCLI {
    package static func run(
        arguments: [String], environment: [String: String], idempotencyKey: String,
        transport: some AgentTransport
    ) -> CLIOutcome {
        let invocation: Invocation
        do {
            invocation = try CommandLineParser.parse(arguments, environment: environment)
        } catch {
            return CLIOutcome(failure: .usage(error), json: false)
        }
        if case let .help(topic) = invocation.command {
            return CLIOutcome(standardOutput: topic.usage, exitCode: .ok)
        }
        guard let request = invocation.command.request(idempotencyKey: idempotencyKey) else {
            return CLIOutcome(exitCode: .ok)
        }
        var result = transport.send(request, socketPath: invocation.socketPath)
        if case .failure(.connectionLost) = result, invocation.command.retriesAfterConnectionLoss {
            // Same request, same idempotency key: a start the daemon already applied is answered, not repeated.
            result = transport.send(request, socketPath: invocation.socketPath)
        }
        switch result {
        case let .failure(failure):
            return CLIOutcome(failure: .transport(failure, socketPath: invocation.socketPath), json: invocation.json)
        case let .success(response):
            return outcome(of: invocation, request: request, response: response)
        }
    }

    static func outcome(of invocation: Invocation, request: AgentRequest, response: AgentResponse) -> CLIOutcome {
        let decoder = JSONDecoder()
        let body = Data(response.body)
        // A value with a number beyond Double's range is no more usable than one that is not JSON.
        let parsed = (try? decoder.decode(JSONValue.self, from: body)).flatMap { $0.isReadable ? $0 : nil }
        let isObject = if case .object = parsed { true } else { false }
        guard (200..<300).contains(response.status) else {
            let error = isObject ? (try? decoder.decode(ResponseEnvelopes.Failure.self, from: body))?.error : nil
            let failure = CLIFailure.daemon(
                status: response.status, error: error,
                request: "\(request.method) \(request.path)")
            return CLIOutcome(
                failure: failure, json: invocation.json,
                daemonObject: isObject ? JSONText.compact(response.body) : nil)
        }
        guard let parsed, isObject else {
            return CLIOutcome(
                failure: .badAnswer("not a JSON object", socketPath: invocation.socketPath),
                json: invocation.json)
        }
        switch success(invocation, value: parsed, body: body, decoder: decoder, raw: response.body) {
        case let .success(text):
            return CLIOutcome(standardOutput: text, exitCode: .ok)
        case let .failure(problem):
            return CLIOutcome(
                failure: .badAnswer(problem.detail, socketPath: invocation.socketPath),
                json: invocation.json)
        }
    }

    private struct Problem: Error {
        var detail: String
    }

    private static func success(
        _ invocation: Invocation, value: JSONValue, body: Data, decoder: JSONDecoder,
        raw: [UInt8]
    ) -> Result<String, Problem> {
        let json = invocation.json
        switch invocation.command {
        case .help:
            return .success("")
        case .taskStart:
            guard let snapshot = (try? decoder.decode(ResponseEnvelopes.Snapshot.self, from: body))?.liveActivity,
                let requestID = snapshot.requestID, !requestID.isEmpty
            else { return .failure(Problem(detail: "no live_activity.request_id in the answer")) }
            guard json else { return .success(OutputFormatter.started(snapshot)) }
            var object = JSONText.compact(raw)
            if case let .object(members) = value, members["request_id"] == nil {
                object = JSONText.prepending(key: "request_id", value: requestID, to: object)
            }
            return .success(object + "\n")
        case .taskUpdate, .taskEnd, .taskShow:
            guard let snapshot = (try? decoder.decode(ResponseEnvelopes.Snapshot.self, from: body))?.liveActivity
            else { return .failure(Problem(detail: "no live_activity in the answer")) }
            return .success(json ? JSONText.compact(raw) + "\n" : OutputFormatter.snapshot(snapshot))
        case .taskList:
            guard let tasks = (try? decoder.decode(ResponseEnvelopes.TaskList.self, from: body))?.tasks
            else { return .failure(Problem(detail: "no tasks list in the answer")) }
            return .success(json ? JSONText.compact(raw) + "\n" : OutputFormatter.taskList(tasks))
        case .status:
            return .success(json ? JSONText.compact(raw) + "\n" : OutputFormatter.status(value))
        }
    }
}
