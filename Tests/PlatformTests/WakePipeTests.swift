import Testing

@testable import Platform

@Suite struct WakePipeTests {
    @Test func aWakeMakesTheReadEndReadableUntilDrained() throws {
        let pipe = try WakePipe.make()
        defer { pipe.close() }
        #expect(DescriptorPoll.waitForReadable([pipe.descriptor], timeoutMilliseconds: 0) == [false])
        pipe.wake()
        pipe.wake()
        #expect(DescriptorPoll.waitForReadable([pipe.descriptor], timeoutMilliseconds: 1_000) == [true])
        pipe.drain()
        #expect(DescriptorPoll.waitForReadable([pipe.descriptor], timeoutMilliseconds: 0) == [false])
    }

    @Test func wakingAFullPipeNeverBlocks() throws {
        let pipe = try WakePipe.make()
        defer { pipe.close() }
        // More wakes than a pipe holds bytes: the extra ones are dropped, the pipe stays readable.
        for _ in 0..<70_000 { pipe.wake() }
        #expect(DescriptorPoll.waitForReadable([pipe.descriptor], timeoutMilliseconds: 0) == [true])
    }
}
