import AgentCLI
import FoundationEssentials
import Platform
import WireFormat

/// `aidenctl task run`: starts the task, runs the command with its output passed through, reports
/// `PROGRESS` lines when asked, stops the command when the person asks from the phone (heard at once by a
/// `StopWatch` holding the board's wait: SIGTERM, then SIGKILL after `RunTermination.stopGrace`), and ends the
/// task as the command ended. The decisions (what is a progress line, which line is the error, what is a stop, how the
/// task ends, the exit status) are AgentCLI's; this is the process, the pipes and the signals around them.
struct TaskRunner {
    let invocation: Invocation
    let run: Command.Run
    let transport: any AgentTransport

    /// Runs it all and returns aidenctl's exit status. Call before any thread exists: it blocks signals.
    func execute(startKey: String) -> Int32 {
        let relay: SignalRelay
        do {
            relay = try SignalRelay.start()
        } catch {
            report("cannot set up signal handling: \(error.reason)")
            return ExitCode.failure.rawValue
        }
        // A reader that went away (`task run … | head`) must not kill aidenctl before it ends the task.
        CurrentProcess.ignoreBrokenPipes()
        var random = SystemRandomNumberGenerator()

        let snapshot: SnapshotView
        switch send(.taskStart(run.start), key: startKey) {
        case let .failure(failure):
            OutputDescriptor.standardError.write(failure.line + "\n")
            return failure.exitCode.rawValue
        case let .success(answer):
            snapshot = answer
        }
        guard let requestID = snapshot.requestID, !requestID.isEmpty else {
            report("unusable answer from aiden-board at \(invocation.socketPath): no live_activity.request_id")
            return ExitCode.failure.rawValue
        }
        if let status = snapshot.status, status.known?.isTerminal ?? false {
            report(
                "task \(requestID) has already ended (status \(status.rawValue)); not running the command again "
                    + "(a new run needs a new --request-id or --idempotency-key)")
            return ExitCode.failure.rawValue
        }

        var environment = ProcessInfo.processInfo.environment
        // The command's own aidenctl calls name this task and board; the start's key is not theirs.
        environment[Invocation.taskIDEnvironmentVariable] = requestID
        environment[Invocation.socketEnvironmentVariable] = invocation.socketPath
        environment[Invocation.idempotencyKeyEnvironmentVariable] = nil

        let termination: RunTermination
        var lastLine = LastLine()
        var stoppedFromPhone = false
        switch relay.startChild({
            ChildProcess.spawn(run.command, environment: environment, pipeStandardOutput: run.progressFromStdout)
        }) {
        case nil:
            let number = relay.stop ?? SignalNumber.terminate
            termination = .stoppedBeforeStart(signal: number, name: SignalNumber.name(of: number))
        case let .failed(notStarted)?:
            termination = notStarted
        case let .started(child)?:
            // The task's own stop, on the task: one recorded before this run (a retried start) counts too.
            let stopWatch: StopWatch?
            do {
                stopWatch = try StopWatch.start(requestID: requestID, socketPath: invocation.socketPath) { message in
                    OutputDescriptor.standardError.write("aidenctl: \(message)\n")
                }
            } catch {
                stopWatch = nil
                report("cannot watch for a stop from the phone: \(error.reason)")
            }
            termination = follow(
                child, relay: relay, stopWatch: stopWatch, requestID: requestID,
                heartbeat: RunHeartbeat.interval(staleAfterSeconds: snapshot.staleAfterSeconds), lastLine: &lastLine,
                stoppedFromPhone: &stoppedFromPhone, random: &random)
        }

        let ending = termination.end(
            requestID: requestID, command: run.command[0], lastErrorLine: lastLine.text,
            interruptedBy: relay.stop.map(SignalNumber.name(of:)), stoppedFromPhone: stoppedFromPhone)
        if case .notStarted = termination, let error = ending.error { report(error) }
        end(ending, random: &random)
        return termination.exitStatus
    }

    /// Passes the command's output through until it has ended, and returns how it ended.
    private func follow(
        _ child: ChildProcess, relay: SignalRelay, stopWatch: StopWatch?, requestID: String, heartbeat: Duration,
        lastLine: inout LastLine, stoppedFromPhone: inout Bool, random: inout SystemRandomNumberGenerator
    ) -> RunTermination {
        let clock = ContinuousClock()
        var nextHeartbeat = clock.now + heartbeat
        var killAt: ContinuousClock.Instant?
        var killed = false
        var errorOpen = true
        var outputOpen = child.standardOutput != nil
        var filter = ProgressLineFilter()
        var warned: Set<String> = []
        var buffer = [UInt8](repeating: 0, count: 65_536)

        func readError() {
            while errorOpen {
                let count: Int
                switch child.standardError.read(into: &buffer) {
                case let .bytes(read): count = read
                case .end:
                    errorOpen = false
                    return
                case .nothing: return
                }
                lastLine.feed(buffer[..<count])
                OutputDescriptor.standardError.write(buffer[..<count])
            }
        }
        func readOutput() {
            guard let descriptor = child.standardOutput else { return }
            var reports: [ProgressLineFilter.Report] = []
            reading: while outputOpen {
                let count: Int
                switch descriptor.read(into: &buffer) {
                case let .bytes(read): count = read
                case .end:
                    outputOpen = false
                    let rest = filter.finish()
                    passOutput(rest.output, descriptor: descriptor, open: &outputOpen)
                    reports += rest.reports
                    break reading
                case .nothing: break reading
                }
                let filtered = filter.feed(buffer[..<count])
                passOutput(filtered.output, descriptor: descriptor, open: &outputOpen)
                reports += filtered.reports
            }
            if let report = ProgressLineFilter.Report.merged(reports) {
                progress(report, requestID: requestID, warned: &warned, random: &random)
            }
        }

        while true {
            // Half a second at most: a missed wake costs that, never the run. A stop wakes it at once.
            let ready = DescriptorPoll.waitForReadable(
                [
                    errorOpen ? child.standardError.number : nil,
                    outputOpen ? child.standardOutput?.number : nil,
                    relay.wakes.descriptor,
                    killAt == nil ? stopWatch?.wakes.descriptor : nil,
                ], timeoutMilliseconds: 500)
            if ready[0] { readError() }
            if ready[1] { readOutput() }
            if ready[2] { relay.wakes.drain() }
            if ready[3], let stopWatch {
                stopWatch.wakes.drain()
                if killAt == nil, let line = stopWatch.line {
                    report("\(line); stopping the command (SIGTERM)")
                    stoppedFromPhone = true
                    relay.signalChild(SignalNumber.terminate)
                    killAt = clock.now + RunTermination.stopGrace
                }
            }
            if clock.now >= nextHeartbeat {
                // The command is alive, however quiet: news for the board, so the task is not taken for abandoned.
                if case let .failure(failure) = send(
                    .taskHeartbeat(requestID: requestID), key: IdempotencyKey.make(using: &random)),
                    warned.insert(failure.message).inserted
                {
                    report("could not tell the board task \(requestID) is still running: \(failure.message)")
                }
                nextHeartbeat = clock.now + heartbeat
            }
            if let deadline = killAt, !killed, clock.now >= deadline {
                killed = true
                if relay.signalChild(SignalNumber.kill) {
                    report("the command did not end within \(RunTermination.stopGrace) of SIGTERM; killed it (SIGKILL)")
                }
            }
            if let termination = relay.reap(child) {
                // What it wrote before it ended is in the pipes; a process it left behind may keep them open.
                readError()
                readOutput()
                return termination
            }
        }
    }

    /// Writes the command's stdout on; when aidenctl's own stdout is gone, closes the pipe so the command
    /// sees the same broken pipe it would have seen without aidenctl.
    private func passOutput(_ bytes: [UInt8], descriptor: InputDescriptor, open: inout Bool) {
        guard !bytes.isEmpty, open else { return }
        if !OutputDescriptor.standardOutput.write(bytes[...]) {
            descriptor.close()
            open = false
        }
    }

    /// One progress update; a failure is reported once per kind and the command keeps running.
    private func progress(
        _ line: ProgressLineFilter.Report, requestID: String, warned: inout Set<String>,
        random: inout SystemRandomNumberGenerator
    ) {
        let update = Command.taskUpdate(Command.Update(requestID: requestID, step: line.step, progress: line.progress))
        if case let .failure(failure) = send(update, key: IdempotencyKey.make(using: &random)),
            warned.insert(failure.message).inserted
        {
            report("could not report progress of task \(requestID): \(failure.message)")
        }
    }

    /// Ends the task. A 400 (the error text made the snapshot too big, say) is tried once more without it.
    private func end(_ end: Command.End, random: inout SystemRandomNumberGenerator) {
        var result = send(.taskEnd(end), key: IdempotencyKey.make(using: &random))
        if case let .failure(.daemon(status, _, _)) = result, status == 400, end.error?.isEmpty == false {
            var plain = end
            plain.error = ""
            result = send(.taskEnd(plain), key: IdempotencyKey.make(using: &random))
        }
        if case let .failure(failure) = result {
            report("could not end task \(end.requestID) as \(end.status.rawValue): \(failure.message)")
        }
    }

    /// One write and the task in its answer; `key` is its idempotency key unless the command names one.
    private func send(_ command: Command, key: String) -> Result<SnapshotView, CLIFailure> {
        let invocation = Invocation(socketPath: invocation.socketPath, command: command)
        guard let request = command.request(idempotencyKey: key) else {
            preconditionFailure("every write makes a request")
        }
        return AgentCLI.exchange(request, invocation: invocation, transport: transport).flatMap {
            AgentCLI.answer($0, to: request, invocation: invocation)
        }
    }

    private func report(_ message: String) {
        OutputDescriptor.standardError.write("aidenctl: \(message)\n")
    }
}
