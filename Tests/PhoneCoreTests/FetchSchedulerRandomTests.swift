import Testing
import WakeProtocol

@testable import PhoneCore

/// Thousands of random event streams against the scheduler, with the caller simulated the way the
/// shell behaves: it performs every action, has one timer, and reports each fetch's end once.
@Suite struct FetchSchedulerRandomTests {
    @Test(arguments: 0..<8) func invariantsHoldOverRandomStreams(block: UInt64) {
        for stream in 0..<500 {
            var harness = Harness(seed: block * 1_000 + UInt64(stream))
            harness.run()
        }
    }
}

private struct Harness {
    var rng: SplitMix64
    let seed: UInt64
    let safety: Duration
    var scheduler: FetchScheduler
    var now: Duration = .zero
    var inFlight = false
    var timer: Duration?
    var started = false
    var triggers = 0
    var answers = 0
    let follow = (interval: Duration.milliseconds(100), window: Duration.seconds(1))
    var failures = 0
    var fetches = 0
    /// Step of the oldest trigger not yet followed by the start of a fetch.
    var unservedSince: Int?
    /// The last fetch failed and no fetch started since: the scheduler owes a retry.
    var owesRetry = false
    var step = 0

    init(seed: UInt64) {
        self.seed = seed
        rng = SplitMix64(seed: seed)
        safety = .seconds(Int.random(in: 5...60, using: &rng))
        scheduler = FetchScheduler(
            configuration: .init(safetyInterval: safety, followInterval: follow.interval, followWindow: follow.window))
    }

    mutating func run() {
        // Most streams start like the client does; some see a Wake before `started`.
        apply(Bool.random(using: &rng) || seed % 7 != 0 ? .started : .wake)
        let length = Int.random(in: 1...300, using: &rng)
        for _ in 0..<length {
            now += .milliseconds(Int.random(in: 0...2_500, using: &rng))
            if let due = timer, now >= due {
                timer = nil
                apply(.deadlineReached)
                continue
            }
            let roll = Int.random(in: 0..<100, using: &rng)
            switch roll {
            case 0..<40: apply(.wake)
            case 40..<45: apply(.connected)
            case 45..<50: apply(.linkUp)
            case 88..<90: apply(.answerRecorded)
            case 50..<80 where inFlight: apply(Bool.random(using: &rng) ? .fetchSucceeded : .fetchFailed)
            case 80..<83: apply(Bool.random(using: &rng) ? .fetchSucceeded : .fetchFailed)  // maybe spurious
            case 83..<88:  // the caller's timer fires early (or a stale one fires): it is spent either way
                timer = nil
                apply(.deadlineReached)
            default: break
            }
        }
        drain()
        #expect(unservedSince == nil, "seed \(seed): a trigger was never followed by a fetch")
        let safetyTicks = Int(now / safety)
        // Each recorded answer adds at most one follow-up fetch per follow interval of its window.
        let followUps = answers * Int(follow.window / follow.interval)
        #expect(fetches <= triggers + failures + safetyTicks + followUps, "seed \(seed): \(fetches) fetches")
    }

    /// Lets every fetch succeed and every retry timer fire until nothing is pending. Safety timers are
    /// not fired: a trigger must be served without them.
    private mutating func drain() {
        for _ in 0..<10 {
            if inFlight {
                now += .milliseconds(50)
                apply(.fetchSucceeded)
            } else if owesRetry, let due = timer {
                now = max(now, due)
                timer = nil
                apply(.deadlineReached)
            } else {
                return
            }
        }
    }

    private mutating func apply(_ event: FetchScheduler.Event) {
        step += 1
        switch event {
        case .answerRecorded:
            answers += 1
            triggers += 1
            started = true
            if unservedSince == nil { unservedSince = step }
        case .started, .wake, .connected, .linkUp:
            triggers += 1
            started = true
            if unservedSince == nil { unservedSince = step }
        case .fetchFailed where inFlight:
            failures += 1
        default:
            break
        }
        // A report while nothing is in flight is spurious; the scheduler must ignore it.
        let wasInFlight = inFlight
        if event == .fetchSucceeded || event == .fetchFailed { inFlight = false }

        switch scheduler.handle(event, at: now) {
        case .startFetch:
            #expect(!inFlight, "seed \(seed): a second fetch while one is in flight")
            inFlight = true
            fetches += 1
            unservedSince = nil
            owesRetry = false
        case .scheduleDeadline(let due):
            #expect(due > now, "seed \(seed): a deadline that is already due")
            timer = due
        case .none:
            break
        }
        if wasInFlight, event == .fetchFailed { owesRetry = true }
        if wasInFlight, event == .fetchSucceeded, !inFlight {
            // Any trigger that arrived during the fetch needs the trailing fetch now, not a safety tick.
            #expect(unservedSince == nil, "seed \(seed): a trigger during the fetch was dropped")
        }
        #expect(scheduler.isFetching == inFlight, "seed \(seed): scheduler and caller disagree")
        if !inFlight, started {
            // Never stuck: idle or backing off always has a deadline, and the caller was told about it.
            #expect(scheduler.nextDeadline != nil, "seed \(seed): idle without a deadline")
            #expect(timer == scheduler.nextDeadline, "seed \(seed): the caller's timer is not the deadline")
        }
    }
}
