import Doctor
import PhoneService
import Platform

/// Composition root of aiden-phone: parse the command line, hand over to the service.
enum Entry {
    static func main() -> Never {
        let arguments = Array(CommandLine.arguments.dropFirst())
        let command: PhoneCommand
        do {
            command = try PhoneCommandLine.parse(arguments)
        } catch {
            OutputChannel.standardError.write("\(error)\n")
            // The channel writes on its own lane: wait for it, or exit takes the message along.
            OutputChannel.standardError.flush()
            CurrentProcess.exit(64)
        }
        switch command {
        case .help:
            print(PhoneCommandLine.usage)
            CurrentProcess.exit(0)
        case .version:
            print("aiden-phone \(BuildInfo.version)")
            CurrentProcess.exit(0)
        case let .doctor(configPath, json):
            let checks = PhoneDoctor.checks(
                configPath: configPath, system: PhoneDoctor.System(environment: CurrentProcess.environment()))
            if json { print(DoctorCheck.json(checks)) } else { checks.forEach { print($0.finding) } }
            CurrentProcess.exit(DoctorFinding.exitStatus(checks.map(\.finding)))
        case let .answer(answer, requestID, configPath, revision):
            let result = PhoneAnswerCommand.run(
                answer, requestID: requestID, revision: revision, configPath: configPath,
                environment: CurrentProcess.environment())
            // The line is the result for a script: stdout when recorded, stderr with the board's error.
            if result.status == 0 {
                print(result.line)
            } else {
                OutputChannel.standardError.write(result.line + "\n")
                OutputChannel.standardError.flush()
            }
            CurrentProcess.exit(result.status)
        case let .completion(shell):
            print(shell.script(for: PhoneCommandLine.completions), terminator: "")
            CurrentProcess.exit(0)
        case let .status(follow, json):
            let status = PhoneStatusCommand.run(
                follow: follow, json: json, environment: CurrentProcess.environment(),
                write: { line in
                    // A bar reads a pipe: each line goes out at once.
                    OutputChannel.standardOutput.write(line + "\n")
                    OutputChannel.standardOutput.flush()
                },
                complain: { line in
                    OutputChannel.standardError.write(line + "\n")
                    OutputChannel.standardError.flush()
                })
            CurrentProcess.exit(status)
        case let .run(configPath, json):
            let status = PhoneDaemon.run(
                configPath: configPath, json: json, environment: CurrentProcess.environment())
            // It only returns when it could not start: the reason is still in stderr's backlog.
            OutputChannel.standardOutput.flush()
            OutputChannel.standardError.flush()
            CurrentProcess.exit(status)
        }
    }
}
