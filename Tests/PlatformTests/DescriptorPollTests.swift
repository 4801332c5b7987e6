import Testing

@testable import Platform

@Suite struct DescriptorPollTests {
    @Test func onlyTheReadyEntryIsFlaggedAndNilIsNeverWatched() throws {
        let quiet = try WakePipe.make()
        let woken = try WakePipe.make()
        defer {
            quiet.close()
            woken.close()
        }
        woken.wake()
        #expect(
            DescriptorPoll.waitForReadable([quiet.descriptor, nil, woken.descriptor], timeoutMilliseconds: 1_000)
                == [false, false, true])
    }

    @Test func nothingReadyWaitsForTheTimeout() throws {
        let quiet = try WakePipe.make()
        defer { quiet.close() }
        let clock = ContinuousClock()
        let start = clock.now
        #expect(DescriptorPoll.waitForReadable([quiet.descriptor, nil], timeoutMilliseconds: 50) == [false, false])
        #expect(clock.now - start >= .milliseconds(40))
    }
}
