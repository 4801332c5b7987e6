import Testing

@testable import Platform

@Suite struct ThreadSleepTests {
    @Test func sleepsAtLeastTheDurationAndNotForANegativeOne() {
        let clock = ContinuousClock()
        let start = clock.now
        ThreadSleep.sleep(for: .milliseconds(30))
        #expect(clock.now - start >= .milliseconds(30))
        ThreadSleep.sleep(for: .milliseconds(-5))
    }
}
