/// Why the phone client could not start, with the exit status to use.
package enum PhoneStartError: Error, CustomStringConvertible {
    case state(PhoneStateError)
    case wakeSource(WakeSourceError)

    package var description: String {
        switch self {
        case let .state(error): "state directory: \(error)"
        case let .wakeSource(error): "wake source: \(error)"
        }
    }

    package var exitCode: Int32 {
        switch self {
        case .state: PhoneDaemon.stateExitCode
        case .wakeSource: PhoneDaemon.systemExitCode
        }
    }
}
