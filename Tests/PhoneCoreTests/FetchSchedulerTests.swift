import Retry
import Testing

@testable import PhoneCore

@Suite struct FetchSchedulerTests {
    typealias Row = (milliseconds: Int, event: FetchScheduler.Event, action: FetchScheduler.Action)

    /// Feeds the rows in order and checks each action.
    private func run(
        _ rows: [Row], _ scheduler: inout FetchScheduler, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        for row in rows {
            let action = scheduler.handle(row.event, at: .milliseconds(row.milliseconds))
            #expect(action == row.action, "at \(row.milliseconds) ms, \(row.event)", sourceLocation: sourceLocation)
        }
    }

    private func at(_ milliseconds: Int) -> FetchScheduler.Action { .scheduleDeadline(at: .milliseconds(milliseconds)) }

    @Test func startThenSafetyRefetchWhenIdle() {
        var scheduler = FetchScheduler()
        #expect(scheduler.nextDeadline == nil)
        run(
            [
                (0, .started, .startFetch),
                (120, .fetchSucceeded, at(60_120)),
                (60_000, .deadlineReached, at(60_120)),  // the timer fired early: re-arm, do not fetch
                (60_120, .deadlineReached, .startFetch),
                (60_200, .fetchSucceeded, at(120_200)),
                (90_000, .wake, .startFetch),  // a Wake fetches at once when idle
                (90_050, .fetchSucceeded, at(150_050)),  // and pushes the safety fetch back
                (120_200, .deadlineReached, at(150_050)),  // a stale timer changes nothing
            ], &scheduler)
        #expect(scheduler.nextDeadline == .milliseconds(150_050))
    }

    @Test func triggersDuringAFetchCauseOneTrailingFetch() {
        var scheduler = FetchScheduler()
        run(
            [
                (0, .started, .startFetch),
                (10, .wake, .none),
                (20, .wake, .none),
                (30, .connected, .none),
                (40, .linkUp, .none),
                (50, .deadlineReached, .none),  // no timer matters while a fetch is in flight
                (100, .fetchSucceeded, .startFetch),  // the one trailing fetch
                (180, .fetchSucceeded, at(60_180)),  // nothing arrived during it: idle
            ], &scheduler)
        #expect(!scheduler.isFetching)
    }

    @Test func failuresBackOffExponentiallyToTheCapAndResetOnSuccess() {
        var scheduler = FetchScheduler()
        run(
            [
                (0, .started, .startFetch),
                (100, .fetchFailed, at(350)),  // 250 ms
                (350, .deadlineReached, .startFetch),
                (400, .fetchFailed, at(900)),  // 500 ms
                (900, .deadlineReached, .startFetch),
                (1_000, .fetchFailed, at(2_000)),  // 1 s
                (2_000, .deadlineReached, .startFetch),
                (2_100, .fetchFailed, at(4_100)),  // 2 s
                (4_100, .deadlineReached, .startFetch),
                (4_200, .fetchFailed, at(8_200)),  // 4 s
                (8_200, .deadlineReached, .startFetch),
                (8_300, .fetchFailed, at(16_300)),  // 8 s: the cap
                (16_300, .deadlineReached, .startFetch),
                (16_400, .fetchFailed, at(24_400)),  // still 8 s
                (24_400, .deadlineReached, .startFetch),
                (24_500, .fetchSucceeded, at(84_500)),
                (84_500, .deadlineReached, .startFetch),
                (84_600, .fetchFailed, at(84_850)),  // back to 250 ms after the success
            ], &scheduler)
        #expect(scheduler.consecutiveFailures == 1)
    }

    @Test func aWakeDuringBackoffWaitsForTheRetryButANewLinkDoesNot() {
        var scheduler = FetchScheduler()
        run(
            [
                (0, .started, .startFetch),
                (100, .fetchFailed, at(350)),
                (200, .wake, .none),  // served by the retry at 350
                (350, .deadlineReached, .startFetch),
                (360, .fetchFailed, at(860)),
                (400, .connected, .startFetch),  // the Wake transport reconnected: try now
                (410, .fetchFailed, at(1_410)),  // the failure count was kept: 1 s
                (500, .linkUp, .startFetch),  // the USB link came up: try now, backoff reset
                (510, .fetchFailed, at(760)),
            ], &scheduler)
    }

    @Test func aTriggerDuringAFailingFetchIsServedByTheRetry() {
        var scheduler = FetchScheduler()
        run(
            [
                (0, .started, .startFetch),
                (10, .wake, .none),
                (20, .fetchFailed, at(270)),  // no immediate trailing fetch into a failing board
                (270, .deadlineReached, .startFetch),
                (300, .fetchSucceeded, at(60_300)),
            ], &scheduler)
    }

    @Test func reportsThatDoNotMatchTheStateAreIgnored() {
        var scheduler = FetchScheduler()
        run(
            [
                (0, .deadlineReached, .none),  // before anything started: no timer is armed
                (0, .fetchSucceeded, .none),
                (0, .fetchFailed, .none),
                (5, .started, .startFetch),
                (10, .fetchSucceeded, at(60_010)),
                (20, .fetchSucceeded, .none),  // a second report for the same fetch
                (30, .fetchFailed, .none),
            ], &scheduler)
        #expect(scheduler.consecutiveFailures == 0)
        #expect(scheduler.nextDeadline == .milliseconds(60_010))
    }

    @Test func aWakeStormDuringOneFetchYieldsExactlyOneTrailingFetch() {
        var scheduler = FetchScheduler()
        var starts = 0
        func count(_ action: FetchScheduler.Action) { if action == .startFetch { starts += 1 } }
        count(scheduler.handle(.started, at: .zero))
        for step in 1...10_000 {
            count(scheduler.handle(.wake, at: .microseconds(step)))
        }
        #expect(starts == 1)
        count(scheduler.handle(.fetchSucceeded, at: .milliseconds(20)))
        #expect(starts == 2)
        count(scheduler.handle(.fetchSucceeded, at: .milliseconds(40)))
        #expect(starts == 2)
        #expect(scheduler.nextDeadline == .milliseconds(60_040))
    }

    @Test func aRecordedAnswerIsFollowedForItsWindowThenTheSafetyFetchResumes() {
        let configuration = FetchScheduler.Configuration(
            followInterval: .milliseconds(100), followWindow: .milliseconds(350))
        var scheduler = FetchScheduler(configuration: configuration)
        run(
            [
                (0, .started, .startFetch),
                (10, .fetchSucceeded, at(60_010)),
                (1_000, .answerRecorded, .startFetch),  // idle: fetch at once
                (1_020, .fetchSucceeded, at(1_120)),  // then every 100 ms
                (1_120, .deadlineReached, .startFetch),
                (1_140, .wake, .none),  // a Wake meanwhile: one trailing fetch, as always
                (1_150, .fetchSucceeded, .startFetch),
                (1_160, .fetchSucceeded, at(1_260)),
                (1_260, .deadlineReached, .startFetch),
                (1_280, .fetchFailed, at(1_530)),  // a failure backs off as always
                (1_530, .deadlineReached, .startFetch),
                (1_540, .fetchSucceeded, at(61_540)),  // past 1 350 ms: the window is over
            ], &scheduler)
        #expect(scheduler.followingUntil == nil)
    }

    @Test func theLastFollowUpFallsOnTheWindowsEnd() {
        var scheduler = FetchScheduler(
            configuration: .init(followInterval: .milliseconds(100), followWindow: .milliseconds(250)))
        run(
            [
                (0, .started, .startFetch),
                (5, .answerRecorded, .none),  // during a fetch: the trailing fetch serves it
                (10, .fetchSucceeded, .startFetch),
                (20, .fetchSucceeded, at(120)),
                (120, .deadlineReached, .startFetch),
                (200, .fetchSucceeded, at(255)),  // not 300: the window ends at 255
                (255, .deadlineReached, .startFetch),
                (260, .fetchSucceeded, at(60_260)),
                (300, .answerRecorded, .startFetch),  // a second answer opens a new window
                (310, .fetchSucceeded, at(410)),
            ], &scheduler)
    }

    @Test func configurableIntervals() {
        let configuration = FetchScheduler.Configuration(
            backoff: Backoff(base: .milliseconds(100), cap: .milliseconds(300)), safetyInterval: .seconds(5))
        var scheduler = FetchScheduler(configuration: configuration)
        run(
            [
                (0, .started, .startFetch),
                (0, .fetchFailed, at(100)),
                (100, .deadlineReached, .startFetch),
                (100, .fetchFailed, at(300)),
                (300, .deadlineReached, .startFetch),
                (300, .fetchFailed, at(600)),  // capped at 300 ms
                (600, .deadlineReached, .startFetch),
                (600, .fetchSucceeded, at(5_600)),
            ], &scheduler)
        #expect(scheduler.configuration.backoff.delay(afterFailures: 1_000) == .milliseconds(300))
    }
}
