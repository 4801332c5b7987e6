import Glibc
import Testing

@testable import Platform

/// Real commands through /bin/sh: their output on the pipes, their ends as `reap` reports them.
@Suite struct SpawnedProcessTests {
    static let environment = ["PATH": "/usr/bin:/bin"]

    /// Reaps `process`, waiting 10 s at most, and reads what is left on its pipes.
    func finish(_ process: SpawnedProcess) -> (end: SpawnedProcess.End?, output: [UInt8], error: [UInt8]) {
        var end: SpawnedProcess.End?
        for _ in 0..<1_000 {
            end = process.reap()
            if end != nil { break }
            ThreadSleep.sleep(for: .milliseconds(10))
        }
        return (
            end, process.standardOutput?.readAll(limit: 1 << 20) ?? [], process.standardError.readAll(limit: 1 << 20)
        )
    }

    @Test func outputComesOnThePipesAndTheExitStatusIsReported() throws {
        let process = try SpawnedProcess.spawn(
            ["sh", "-c", "echo out; echo err >&2; exit 3"], environment: Self.environment, pipeStandardOutput: true,
            defaultSignals: [])
        let (end, output, error) = finish(process)
        #expect(end == .exited(status: 3))
        #expect(output == Array("out\n".utf8))
        #expect(error == Array("err\n".utf8))
    }

    @Test func theEnvironmentIsExactlyTheOneGiven() throws {
        let process = try SpawnedProcess.spawn(
            ["sh", "-c", "echo \"$AIDEN_SPAWN_TEST\" >&2"], environment: ["AIDEN_SPAWN_TEST": "given", "PATH": "/bin"],
            pipeStandardOutput: false, defaultSignals: [])
        #expect(process.standardOutput == nil)
        #expect(finish(process).error == Array("given\n".utf8))
    }

    @Test func aSignalSentEndsItAndIsReported() throws {
        let process = try SpawnedProcess.spawn(
            ["sleep", "30"], environment: Self.environment, pipeStandardOutput: false,
            defaultSignals: [SignalNumber.terminate])
        #expect(SpawnedProcess.send(SignalNumber.terminate, to: process.id))
        #expect(finish(process).end == .killed(signal: SignalNumber.terminate))
        // Reaped: the id is no longer ours to ask about.
        #expect(process.reap() == .unknown)
    }

    @Test func aProgramThatIsNotThereIsNotFound() {
        #expect {
            try SpawnedProcess.spawn(
                ["aiden-no-such-program"], environment: Self.environment, pipeStandardOutput: true, defaultSignals: [])
        } throws: { error in
            guard let error = error as? SystemCallError else { return false }
            return error.operation == "posix_spawnp" && error.isNotFound
                && error.description == "posix_spawnp: No such file or directory"
        }
    }
}
