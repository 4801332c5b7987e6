import Testing
import WireFormat

@testable import AgentCLI

@Suite("task run: how the command ended → the task's end and aidenctl's exit status")
struct RunTerminationTests {
    /// termination, last stderr line, signal aidenctl was stopped by → status, error, exit status.
    static let table: [(RunTermination, String?, String?, TaskStatus, String?, Int32)] = [
        (.exited(0), nil, nil, .completed, nil, 0),
        (.exited(0), "warning: something", nil, .completed, nil, 0),
        (.exited(0), nil, "SIGINT", .completed, nil, 0),
        (.exited(2), "make: *** [all] Error 1", nil, .failed, "make: *** [all] Error 1", 2),
        (.exited(3), nil, nil, .failed, "exited with status 3", 3),
        (.exited(130), nil, "SIGINT", .canceled, "stopped by SIGINT", 130),
        (.exited(1), "cleaned up", "SIGTERM", .canceled, "cleaned up", 1),
        (.killed(signal: 9, name: "SIGKILL"), nil, nil, .failed, "killed by SIGKILL", 137),
        (.killed(signal: 11, name: "SIGSEGV"), "last words", nil, .failed, "last words", 139),
        (.killed(signal: 15, name: "SIGTERM"), nil, "SIGTERM", .canceled, "stopped by SIGTERM", 143),
        (.killed(signal: 2, name: "SIGINT"), nil, "SIGINT", .canceled, "stopped by SIGINT", 130),
        (
            .notStarted(reason: "No such file or directory", status: 127), nil, nil, .failed,
            "cannot run 'nope': No such file or directory", 127
        ),
        (
            .notStarted(reason: "Permission denied", status: 126), nil, nil, .failed,
            "cannot run 'nope': Permission denied", 126
        ),
        (
            .stoppedBeforeStart(signal: 1, name: "SIGHUP"), nil, "SIGHUP", .canceled,
            "stopped by SIGHUP before the command started", 129
        ),
    ]

    @Test(arguments: table)
    func endsTheTaskAsTheCommandEnded(
        termination: RunTermination, lastLine: String?, interruption: String?, status: TaskStatus, error: String?,
        exitStatus: Int32
    ) {
        let end = termination.end(
            requestID: "chat_1", command: "nope", lastErrorLine: lastLine, interruptedBy: interruption)
        #expect(end == Command.End(requestID: "chat_1", status: status, error: error))
        #expect(termination.exitStatus == exitStatus)
    }

    @Test func aCommandNameCannotBreakTheErrorLine() {
        let end = RunTermination.notStarted(reason: "No such file or directory", status: 127)
            .end(requestID: "r", command: "evil\n\u{1B}[2J", lastErrorLine: nil, interruptedBy: nil)
        #expect(end.error == #"cannot run 'evil\n\u{1b}[2J': No such file or directory"#)
    }

    /// A stop from the phone: SIGTERM killed it, or it exited non-zero on it, or it finished anyway (exit 0).
    @Test(arguments: [
        (RunTermination.killed(signal: 15, name: "SIGTERM"), TaskStatus.canceled, "stopped from the phone" as String?),
        (.killed(signal: 9, name: "SIGKILL"), .canceled, "stopped from the phone"),
        (.exited(1), .canceled, "stopped from the phone"),
        (.exited(0), .completed, nil),
    ])
    func aStopFromThePhoneEndsTheTaskCanceled(termination: RunTermination, status: TaskStatus, error: String?) {
        let end = termination.end(
            requestID: "chat_1", command: "sleep", lastErrorLine: "Terminated", interruptedBy: nil,
            stoppedFromPhone: true)
        #expect(end == Command.End(requestID: "chat_1", status: status, error: error))
        #expect(RunTermination.stopGrace == .seconds(5))
    }
}
