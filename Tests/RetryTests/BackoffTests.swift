import Testing

@testable import Retry

/// Timeline table: after this many consecutive failures, this wait.
@Suite struct BackoffTests {
    @Test(arguments: [
        (0, 1), (1, 1), (2, 2), (3, 4), (4, 8), (5, 16), (6, 30), (7, 30), (1_000, 30), (Int.max, 30),
    ])
    func delaysDoubleFromTheBaseToTheCap(failures: Int, seconds: Int) {
        let backoff = Backoff(base: .seconds(1), cap: .seconds(30))
        #expect(backoff.delay(afterFailures: failures) == .seconds(seconds))
    }

    @Test func aCapBelowTheBaseIsTheBase() {
        let backoff = Backoff(base: .seconds(3), cap: .seconds(1))
        #expect(backoff.cap == .seconds(3))
        #expect(backoff.delay(afterFailures: 5) == .seconds(3))
    }

    @Test func aNegativeCountIsTheFirstFailure() {
        #expect(Backoff(base: .milliseconds(250), cap: .seconds(8)).delay(afterFailures: -4) == .milliseconds(250))
    }
}
