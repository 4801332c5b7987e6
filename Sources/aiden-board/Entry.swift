import BoardService
import Doctor
import Platform

/// Composition root of aiden-board: parse the command line, hand over to the service.
enum Entry {
    static func main() -> Never {
        let arguments = Array(CommandLine.arguments.dropFirst())
        let command: BoardCommand
        do {
            command = try BoardCommandLine.parse(arguments)
        } catch {
            printError("\(error)")
            CurrentProcess.exit(64)
        }
        switch command {
        case let .help(text):
            print(text)
            CurrentProcess.exit(0)
        case .version:
            print("aiden-board \(BuildInfo.version)")
            CurrentProcess.exit(0)
        case let .run(configPath, explicitConfig):
            CurrentProcess.exit(BoardDaemon.run(configPath: configPath, explicitConfig: explicitConfig))
        case let .doctor(configPath, explicitConfig, json):
            let checks = BoardDoctor.checks(configPath: configPath, explicitConfig: explicitConfig)
            if json { print(DoctorCheck.json(checks)) } else { checks.forEach { print($0.finding) } }
            CurrentProcess.exit(DoctorFinding.exitStatus(checks.map(\.finding)))
        case let .configShow(configPath, explicitConfig):
            let outcome = ConfigShowCommand.run(configPath: configPath, explicitConfig: explicitConfig)
            if outcome.exitCode == 0 { print(outcome.text, terminator: "") } else { printError(outcome.text) }
            CurrentProcess.exit(outcome.exitCode)
        case let .gadgetStatus(configfs):
            let outcome = GadgetCommand.status(configfs: configfs)
            if outcome.exitCode == 0 || outcome.exitCode == GadgetCommand.notUpExitCode {
                print(outcome.message)
            } else {
                printError(outcome.message)
            }
            CurrentProcess.exit(outcome.exitCode)
        case let .gadget(up, configPath, explicitConfig, configfs, udc):
            let outcome = GadgetCommand.run(
                up: up, configPath: configPath, explicitConfig: explicitConfig, configfs: configfs, udc: udc)
            if outcome.exitCode == 0 { print(outcome.message) } else { printError(outcome.message) }
            CurrentProcess.exit(outcome.exitCode)
        }
    }

    static func printError(_ text: String) {
        OutputDescriptor.standardError.write(text + "\n")
    }
}
