import PhoneCore
import Platform
import Synchronization

/// Runs a `PhoneSession`: takes inputs from any thread (Wake receiver, USB thread, HTTP queue,
/// timers, signals) into one serial mailbox, and performs the effects the session returns, in
/// order. Nothing here decides; it only moves values between the session and the world.
///
/// The mailbox is drained by whichever thread finds it idle; inputs arriving meanwhile (including
/// answers a transport delivers synchronously) wait their turn, so effects never interleave.
/// Nothing is done under the lock but the session step itself.
package final class PhoneClient: Sendable {
    private struct State: Sendable {
        var session: PhoneSession
        var pending: [PhoneSession.Input] = []
        var draining = false
        /// Only the newest armed timer delivers `deadlineReached`.
        var timerGeneration: UInt64 = 0
        /// When the current drain began (nil: idle), for the watchdog.
        var drainingSince: Duration?
    }

    /// How long one drain of the mailbox may take before the client counts as wedged.
    private static let stuckAfter: Duration = .seconds(10)

    private let state: Mutex<State>
    private let transport: any BoardTransport
    private let timers: any ClientTimers
    private let clock: any ClientClock
    private let output: any PhoneOutput
    private let notifiers: [any AlertNotifier]
    private let saveRecord: @Sendable (AlertRecord) throws(FileSystemError) -> Void
    private let logger: Logger

    package init(
        session: PhoneSession, transport: any BoardTransport, timers: any ClientTimers,
        clock: any ClientClock, output: any PhoneOutput, notifiers: [any AlertNotifier],
        saveRecord: @escaping @Sendable (AlertRecord) throws(FileSystemError) -> Void, logger: Logger
    ) {
        self.state = Mutex(State(session: session))
        self.transport = transport
        self.timers = timers
        self.clock = clock
        self.output = output
        self.notifiers = notifiers
        self.saveRecord = saveRecord
        self.logger = logger
    }

    /// Whether the client is alive for the watchdog: its lock can be taken, and no drain of the
    /// mailbox has been running for longer than `stuckAfter` (effects never block that long).
    package func isResponsive() -> Bool {
        let now = clock.monotonicNow()
        return state.withLock { state in
            guard let since = state.drainingSince else { return true }
            return now - since < Self.stuckAfter
        }
    }

    /// The session as it is now (for status and tests).
    package var session: PhoneSession { state.withLock { $0.session } }

    /// Queues an input; processes the mailbox unless another thread already is.
    package func submit(_ input: PhoneSession.Input) {
        let drain = state.withLock { state -> Bool in
            state.pending.append(input)
            guard !state.draining else { return false }
            state.draining = true
            state.drainingSince = clock.monotonicNow()
            return true
        }
        if drain { self.drain() }
    }

    private func drain() {
        while true {
            let batch = state.withLock { state -> [PhoneSession.Input] in
                let batch = state.pending
                state.pending.removeAll(keepingCapacity: true)
                if batch.isEmpty {
                    state.draining = false
                    state.drainingSince = nil
                }
                return batch
            }
            guard !batch.isEmpty else { return }
            for input in batch {
                let effects = state.withLock { $0.session.handle(input, at: clock.monotonicNow()) }
                effects.forEach(perform)
            }
        }
    }

    private func perform(_ effect: PhoneSession.Effect) {
        switch effect {
        case let .send(request):
            transport.send(request) { [weak self] response in self?.submit(.answer(request, response)) }
        case let .scheduleDeadline(at):
            let generation = state.withLock { state -> UInt64 in
                state.timerGeneration += 1
                return state.timerGeneration
            }
            timers.schedule(after: max(.zero, at - clock.monotonicNow())) { [weak self] in
                self?.timerFired(generation)
            }
        case let .emit(event):
            output.emit(event, at: clock.wallNow())
        case let .alert(alert):
            logger.notice("alert: \(AlertText.line(alert))")
            notifiers.forEach { $0.deliver(alert) }
        case let .saveRecord(record):
            do {
                try saveRecord(record)
            } catch {
                logger.error("could not save the alert record (a restart may repeat alerts): \(error)")
            }
        case let .log(level, message):
            logger.log(level, message)
        }
    }

    private func timerFired(_ generation: UInt64) {
        let current = state.withLock { $0.timerGeneration == generation }
        if current { submit(.deadlineReached) }
    }
}
