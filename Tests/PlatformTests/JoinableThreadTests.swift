import Testing

@testable import Platform

@Suite struct JoinableThreadTests {
    @Test func theBodyRunsOnItsOwnThreadAndJoinWaitsForIt() throws {
        let ran = try WakePipe.make()
        defer { ran.close() }
        let thread = try JoinableThread.started { ran.wake() }
        thread.join()
        #expect(DescriptorPoll.waitForReadable([ran.descriptor], timeoutMilliseconds: 0) == [true])
    }
}
