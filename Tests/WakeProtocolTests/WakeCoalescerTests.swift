import Testing

@testable import WakeProtocol

/// Timeline tables: at time t (ms) this input, expect that action.
@Suite struct WakeCoalescerTests {
    enum Input {
        case change(Int)
        case deadline(Int)
    }

    typealias Row = (input: Input, expected: WakeCoalescer.Action)

    static func ms(_ value: Int) -> Duration { .milliseconds(value) }

    /// Plays the table and checks every row; returns the coalescer for further checks.
    @discardableResult
    func play(
        _ rows: [Row], window: Duration = .milliseconds(750), sourceLocation: SourceLocation = #_sourceLocation
    )
        -> WakeCoalescer
    {
        var coalescer = WakeCoalescer(window: window)
        for (index, row) in rows.enumerated() {
            let action: WakeCoalescer.Action
            switch row.input {
            case .change(let t): action = coalescer.changed(at: Self.ms(t))
            case .deadline(let t): action = coalescer.deadlineReached(at: Self.ms(t))
            }
            #expect(action == row.expected, "row \(index): \(row.input)", sourceLocation: sourceLocation)
        }
        return coalescer
    }

    @Test func firstChangeGoesOutAtOnce() {
        var coalescer = play([(.change(0), .sendWake)])
        #expect(coalescer.nextDeadline == nil)
        #expect(coalescer.changed(at: Self.ms(749)) == .scheduleDeadline(Self.ms(750)), "the window opened at 0")
    }

    @Test func aBurstBecomesOneLeadingAndOneTrailingWake() {
        var coalescer = play([
            (.change(0), .sendWake),
            (.change(100), .scheduleDeadline(Self.ms(750))),
            (.change(200), .none),
            (.change(749), .none),
            (.deadline(750), .sendWake),
        ])
        #expect(coalescer.nextDeadline == nil)
        #expect(
            coalescer.changed(at: Self.ms(1499)) == .scheduleDeadline(Self.ms(1500)), "the next window opened at 750")
    }

    /// The trailing Wake opens a window of its own.
    @Test func aTrailingWakeOpensTheNextWindow() {
        play([
            (.change(0), .sendWake),
            (.change(10), .scheduleDeadline(Self.ms(750))),
            (.deadline(750), .sendWake),
            (.change(1000), .scheduleDeadline(Self.ms(1500))),
            (.deadline(1500), .sendWake),
            (.change(2250), .sendWake),
        ])
    }

    /// A Wake that went out late (its durable mark written first) opens its window then, not at the decision.
    @Test func theWindowRunsFromWhenTheWakeWentOut() {
        var coalescer = WakeCoalescer()
        #expect(coalescer.changed(at: Self.ms(0)) == .sendWake)
        coalescer.wentOut(at: Self.ms(300))
        #expect(coalescer.changed(at: Self.ms(800)) == .scheduleDeadline(Self.ms(1050)))
        #expect(coalescer.deadlineReached(at: Self.ms(1049)) == .scheduleDeadline(Self.ms(1050)))
        #expect(coalescer.deadlineReached(at: Self.ms(1050)) == .sendWake)
        coalescer.wentOut(at: Self.ms(1050))
        #expect(coalescer.changed(at: Self.ms(1799)) == .scheduleDeadline(Self.ms(1800)), "on time: no change")
        coalescer.wentOut(at: Self.ms(10))
        #expect(coalescer.nextDeadline == Self.ms(1800), "never earlier than the decision's window")
    }

    @Test func aChangeAfterAQuietWindowIsALeadingEdge() {
        play([
            (.change(0), .sendWake),
            (.change(750), .sendWake),  // the window is [0, 750)
            (.change(5000), .sendWake),
            (.change(5001), .scheduleDeadline(Self.ms(5750))),
        ])
    }

    @Test func anEarlyTimerIsRescheduled() {
        var coalescer = play([
            (.change(0), .sendWake),
            (.change(10), .scheduleDeadline(Self.ms(750))),
            (.deadline(740), .scheduleDeadline(Self.ms(750))),
            (.deadline(749), .scheduleDeadline(Self.ms(750))),
            (.deadline(750), .sendWake),
        ])
        #expect(
            coalescer.changed(at: Self.ms(1499)) == .scheduleDeadline(Self.ms(1500)), "the next window opened at 750")
    }

    /// A late timer sends at once; the next window counts from the actual send.
    @Test func aLateTimerSendsAndOpensTheWindowThen() {
        play([
            (.change(0), .sendWake),
            (.change(10), .scheduleDeadline(Self.ms(750))),
            (.deadline(900), .sendWake),
            (.change(1000), .scheduleDeadline(Self.ms(1650))),
        ])
    }

    /// A change after the window's end, while the timer is late, goes out at once; the late
    /// timer, when it comes, finds nothing to do or a newer deadline to keep.
    @Test func aChangeOvertakingALateTimer() {
        play([
            (.change(0), .sendWake),
            (.change(10), .scheduleDeadline(Self.ms(750))),
            (.change(800), .sendWake),
            (.deadline(805), .none),
            (.change(900), .scheduleDeadline(Self.ms(1550))),
            (.deadline(910), .scheduleDeadline(Self.ms(1550))),
            (.deadline(1550), .sendWake),
        ])
    }

    @Test func deadlinesWithNothingPendingDoNothing() {
        let coalescer = play([
            (.deadline(0), .none),
            (.change(100), .sendWake),
            (.deadline(850), .none),
            (.deadline(10_000), .none),
        ])
        #expect(coalescer.nextDeadline == nil)
        #expect(!coalescer.hasPendingChange)
    }

    @Test func nextDeadlineReportsTheWaitingTrailingEdge() {
        var coalescer = WakeCoalescer()
        #expect(coalescer.window == .milliseconds(750))
        _ = coalescer.changed(at: Self.ms(0))
        #expect(coalescer.nextDeadline == nil)
        _ = coalescer.changed(at: Self.ms(300))
        #expect(coalescer.nextDeadline == Self.ms(750))
        #expect(coalescer.hasPendingChange)
    }

    @Test func theWindowIsConfigurable() {
        play(
            [
                (.change(0), .sendWake),
                (.change(50), .scheduleDeadline(Self.ms(100))),
                (.deadline(100), .sendWake),
                (.change(200), .sendWake),
            ], window: .milliseconds(100))
    }

    @Test func aZeroWindowSendsEveryChange() {
        play(
            [
                (.change(0), .sendWake),
                (.change(0), .sendWake),
                (.change(1), .sendWake),
            ], window: .zero)
        #expect(WakeCoalescer(window: .milliseconds(-5)).window == .zero)
    }

    /// A time earlier than the last Wake (events handed over out of order) is inside the window.
    @Test func aTimeBeforeTheLastWakeCountsAsInsideTheWindow() {
        play([
            (.change(1000), .sendWake),
            (.change(990), .scheduleDeadline(Self.ms(1750))),
            (.deadline(1750), .sendWake),
        ])
    }
}
