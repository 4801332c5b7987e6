import Testing

@testable import WakeProtocol

/// Thousands of random change streams against a simulated timer that may fire early or late,
/// checking the coalescing promises of docs/protocol.md §2.6 on every Wake.
@Suite struct WakeCoalescerRandomizedTests {
    /// What the simulation drives: the coalescer, or a deliberately broken one.
    protocol Subject {
        var window: Duration { get }
        mutating func changed(at now: Duration) -> WakeCoalescer.Action
        mutating func deadlineReached(at now: Duration) -> WakeCoalescer.Action
    }

    enum Event: Equatable {
        case change(Duration)
        case wake(Duration)
    }

    /// The caller's side: one timer, replaced by each schedule; a firing may be early (then the
    /// subject must reschedule) or up to `maxLateness` late.
    struct Simulation<S: Subject> {
        var subject: S
        var generator: SplitMix64
        let maxLateness: Duration
        var timer: Duration?
        var log: [Event] = []

        mutating func perform(_ action: WakeCoalescer.Action, at now: Duration) {
            switch action {
            case .sendWake:
                log.append(.wake(now))
            case .scheduleDeadline(let deadline):
                let remaining = deadline - now
                if remaining > .nanoseconds(1), generator.next() % 4 == 0 {
                    timer = now + remaining / 2
                } else {
                    let lateness = Duration.nanoseconds(
                        Int64.random(in: 0...maxLateness.nanosecondsRoundedDown, using: &generator))
                    timer = max(deadline, now) + lateness
                }
            case .none:
                break
            }
        }

        /// Feeds the changes in time order, fires the timer when it is due, and drains it at the end.
        mutating func run(changes: [Duration]) {
            var next = 0
            while next < changes.count || timer != nil {
                if let fire = timer,
                    next == changes.count || fire < changes[next]
                        || (fire == changes[next] && generator.next() % 2 == 0)
                {
                    timer = nil
                    perform(subject.deadlineReached(at: fire), at: fire)
                } else {
                    let now = changes[next]
                    next += 1
                    log.append(.change(now))
                    perform(subject.changed(at: now), at: now)
                }
            }
        }
    }

    /// Every broken promise in one run, as text.
    static func violations(in log: [Event], window: Duration, maxLateness: Duration) -> [String] {
        var problems: [String] = []
        var lastWake: Duration?
        var changeSinceLastWake = false
        var lastTime = Duration.zero
        for (index, event) in log.enumerated() {
            switch event {
            case .change(let t):
                if t < lastTime { problems.append("simulation went back in time at \(t)") }
                lastTime = t
                changeSinceLastWake = true
                // Every change is followed by a Wake within one window (plus timer lateness).
                let followingWake = log[(index + 1)...].lazy.compactMap { event -> Duration? in
                    if case .wake(let w) = event { w } else { nil }
                }.first
                guard let wake = followingWake else {
                    problems.append("change at \(t) never followed by a Wake")
                    continue
                }
                if wake > t + window + maxLateness { problems.append("change at \(t) waited until \(wake)") }
                // Leading edge: a change after a quiet window goes out at once.
                let quiet = lastWake.map { t >= $0 + window } ?? true
                if quiet, index + 1 < log.count, log[index + 1] != .wake(t) {
                    problems.append("change at \(t) after a quiet window was not sent at once")
                }
            case .wake(let w):
                if w < lastTime { problems.append("simulation went back in time at \(w)") }
                lastTime = w
                if !changeSinceLastWake { problems.append("Wake at \(w) without a change since the last one") }
                if let previous = lastWake, w - previous < window {
                    problems.append("Wakes at \(previous) and \(w) closer than \(window)")
                }
                // With a punctual timer a trailing Wake is exactly at the window's end.
                if maxLateness == .zero, let previous = lastWake, index > 0, log[index - 1] != .change(w),
                    w != previous + window
                {
                    problems.append("trailing Wake at \(w) is not at the window end \(previous + window)")
                }
                lastWake = w
                changeSinceLastWake = false
            }
        }
        return problems
    }

    /// A random stream: bursts, exact-window gaps, simultaneous changes and long silences.
    static func changeTimes(window: Duration, using generator: inout SplitMix64) -> [Duration] {
        let count = Int.random(in: 1...60, using: &generator)
        let windowNanoseconds = max(window.nanosecondsRoundedDown, 1)
        var now = Duration.nanoseconds(Int64.random(in: 0...1_000_000_000, using: &generator))
        var times: [Duration] = []
        for _ in 0..<count {
            times.append(now)
            let gap: Int64 =
                switch generator.next() % 6 {
                case 0: 0
                case 1: Int64.random(in: 0...20_000_000, using: &generator)
                case 2: Int64.random(in: 0...(2 * windowNanoseconds), using: &generator)
                case 3: windowNanoseconds
                case 4: Int64.random(in: windowNanoseconds...(5 * windowNanoseconds), using: &generator)
                default: Int64.random(in: 0...windowNanoseconds / 10, using: &generator)
                }
            now += .nanoseconds(gap)
        }
        return times
    }

    static func window(using generator: inout SplitMix64) -> Duration {
        switch generator.next() % 5 {
        case 0: .milliseconds(750)
        case 1: .milliseconds(100)
        case 2: .milliseconds(1)
        case 3: .zero
        default: .nanoseconds(Int64.random(in: 1...2_000_000_000, using: &generator))
        }
    }

    /// Runs `streams` random streams against the subject built for each window; returns the
    /// first few violations with their seeds.
    static func check<S: Subject>(
        streams: Int, seedBase: UInt64, maxLateness: Duration, makeSubject: (Duration) -> S
    ) -> (violations: [String], wakes: Int) {
        var found: [String] = []
        var wakes = 0
        for seed in seedBase..<(seedBase + UInt64(streams)) {
            var generator = SplitMix64(seed: seed)
            let window = window(using: &generator)
            let changes = changeTimes(window: window, using: &generator)
            var simulation = Simulation(subject: makeSubject(window), generator: generator, maxLateness: maxLateness)
            simulation.run(changes: changes)
            wakes += simulation.log.filter { if case .wake = $0 { true } else { false } }.count
            let problems = violations(in: simulation.log, window: window, maxLateness: maxLateness)
            found += problems.prefix(1).map { "seed \(seed), window \(window): \($0)" }
            if found.count >= 5 { break }
        }
        return (found, wakes)
    }

    @Test func punctualAndEarlyTimersKeepEveryPromise() {
        let result = Self.check(streams: 5000, seedBase: 0, maxLateness: .zero) { WakeCoalescer(window: $0) }
        #expect(result.violations.isEmpty, "\(result.violations)")
        #expect(result.wakes > 20_000)
    }

    /// A late timer delays the trailing Wake by its lateness and never more.
    @Test func lateTimersDelayByTheirLatenessOnly() {
        let result = Self.check(streams: 5000, seedBase: 1_000_000, maxLateness: .milliseconds(40)) {
            WakeCoalescer(window: $0)
        }
        #expect(result.violations.isEmpty, "\(result.violations)")
    }

    /// The checker is sharp: a throttle that drops changes inside a window is caught, and so is
    /// one that sends every change.
    @Test func brokenCoalescersAreCaught() {
        let dropping = Self.check(streams: 200, seedBase: 0, maxLateness: .zero) { LeadingEdgeOnly(window: $0) }
        #expect(
            dropping.violations.contains { $0.contains("never followed by a Wake") || $0.contains("waited until") },
            "\(dropping.violations)")
        let eager = Self.check(streams: 200, seedBase: 0, maxLateness: .zero) { SendEveryChange(window: $0) }
        #expect(eager.violations.contains { $0.contains("closer than") }, "\(eager.violations)")
    }
}

extension WakeCoalescer: WakeCoalescerRandomizedTests.Subject {}

/// Sends a change only if a window has passed; forgets the rest (no trailing edge).
struct LeadingEdgeOnly: WakeCoalescerRandomizedTests.Subject {
    let window: Duration
    var lastWake: Duration?

    mutating func changed(at now: Duration) -> WakeCoalescer.Action {
        if let lastWake, now < lastWake + window { return .none }
        lastWake = now
        return .sendWake
    }

    mutating func deadlineReached(at now: Duration) -> WakeCoalescer.Action { .none }
}

/// No coalescing at all.
struct SendEveryChange: WakeCoalescerRandomizedTests.Subject {
    let window: Duration

    mutating func changed(at now: Duration) -> WakeCoalescer.Action { .sendWake }
    mutating func deadlineReached(at now: Duration) -> WakeCoalescer.Action { .none }
}

extension Duration {
    /// Whole nanoseconds, for the random ranges above (our durations are far below Int64's range).
    var nanosecondsRoundedDown: Int64 {
        let (seconds, attoseconds) = components
        return seconds * 1_000_000_000 + attoseconds / 1_000_000_000
    }
}
