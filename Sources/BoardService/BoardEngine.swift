import BoardAPI
import FoundationEssentials
import LiveActivity
import Platform
import Synchronization
import WakeProtocol

/// The board's state and its rules in motion: routes requests through the pure routers under one
/// lock, makes writes durable as their `Durability` asks (rolling back a write that could not be
/// saved, so nothing is acknowledged that a crash would lose), and turns every accepted change into
/// a coalesced Wake with a sequence covered by the persisted high-water mark.
package final class BoardEngine: Sendable {
    package struct Settings: Sendable {
        package var version: String
        package var liveActivityEnabled: Bool
        package var retention: Duration
        package var coalesceWindow: Duration
        /// How far behind ordinary progress updates may be written (CONTRACT.md §6: at most 1 s).
        package var lazyWriteDelay: Duration = .seconds(1)
        package var sequenceBlockSize: UInt64 = SequenceReservation.defaultBlockSize

        package init(version: String, liveActivityEnabled: Bool, retention: Duration, coalesceWindow: Duration) {
            self.version = version
            self.liveActivityEnabled = liveActivityEnabled
            self.retention = retention
            self.coalesceWindow = coalesceWindow
        }
    }

    private struct Inner: Sendable {
        var board: BoardState
        var wakeState: WakeState
        var coalescer: WakeCoalescer
        var reservation: SequenceReservation
        var nextReason: WakeReason = .system
        var lastEnvelope: WakeEnvelope?
        var wakeFacts: WakeFacts
        var tasksDirty = false
        var lazyWriteScheduled = false
        var expiryScheduledFor: Date?
        /// When the next ended task leaves (nil: none ended), so requests only prune when one is due.
        var nextExpiry: Date?
        var denialLog = TokenBucket(burst: 5, interval: .seconds(10))
        var random = SystemRandomNumberGenerator()
    }

    private let inner: Mutex<Inner>
    private let settings: Settings
    private let phoneRouter: PhoneRouter
    private let agentRouter = AgentRouter()
    private let directory: BoardStateDirectory
    private let sink: any WakeSink
    private let clock: any BoardClock
    private let timers: any TimerScheduler
    private let logger: Logger
    private let usbFacts: @Sendable () -> USBLinkFacts
    private let instanceID: String

    package init(
        settings: Settings, loaded: BoardStateDirectory.Loaded, directory: BoardStateDirectory,
        policy: AccessPolicy, sink: any WakeSink, clock: any BoardClock, timers: any TimerScheduler,
        logger: Logger, usbFacts: @escaping @Sendable () -> USBLinkFacts = { USBLinkFacts(link: "unknown") }
    ) {
        self.settings = settings
        self.phoneRouter = PhoneRouter(policy: policy)
        self.directory = directory
        self.sink = sink
        self.clock = clock
        self.timers = timers
        self.logger = logger
        self.usbFacts = usbFacts
        var random = SystemRandomNumberGenerator()
        instanceID = String(random.next(), radix: 16)
        inner = Mutex(
            Inner(
                board: BoardState(store: loaded.store, epoch: loaded.wake.epoch),
                wakeState: loaded.wake,
                coalescer: WakeCoalescer(window: settings.coalesceWindow),
                reservation: SequenceReservation(
                    persistedHighWater: loaded.wake.sequenceHighWater,
                    blockSize: settings.sequenceBlockSize),
                wakeFacts: WakeFacts(transport: sink.transportName)))
    }

    /// Announces the (re)started board with one `system` Wake and arms the retention timer.
    package func start() {
        inner.withLock { inner in
            noteChange(&inner)
            scheduleExpiry(&inner)
        }
    }

    // MARK: Requests

    /// A request on an ECM (or loopback) listener.
    package func handlePhone(_ request: HTTPRequest) -> HTTPResponse {
        let usb = Self.needsUSBFacts(request.path) ? usbFacts() : nil
        return inner.withLock { inner in
            pruneExpired(&inner)
            let result = phoneRouter.handle(
                request, state: &inner.board, facts: facts(inner, usb: usb),
                now: clock.wallNow())
            if let denial = result.denial { logDenial(denial, request: request, &inner) }
            if let effect = result.effect, let refusal = perform(effect) { return refusal }
            return result.response
        }
    }

    /// A request on the agent's Unix socket.
    package func handleAgent(_ request: HTTPRequest) -> HTTPResponse {
        let usb = Self.needsUSBFacts(request.path) ? usbFacts() : nil
        return inner.withLock { inner in
            pruneExpired(&inner)
            let before = inner.board.store
            let result = agentRouter.handle(
                request, state: &inner.board, facts: facts(inner, usb: usb),
                now: clock.wallNow(), using: &inner.random)
            guard let change = result.change else { return result.response }
            if change.durability == .immediate {
                do {
                    try directory.saveTasks(inner.board.store)
                    inner.tasksDirty = false
                } catch {
                    // Not durable, so not acknowledged: undo it and say why.
                    inner.board.store = before
                    inner.board.invalidateCaches()
                    logger.error("could not save \(request.method) \(request.path): \(error)")
                    return JSONError(
                        status: 503, code: "storage_failed",
                        message: "the board could not save this change (\(error)); nothing was changed"
                    )
                    .response
                }
            } else {
                scheduleLazyWrite(&inner)
            }
            noteChange(&inner)
            scheduleExpiry(&inner)
            return result.response
        }
    }

    /// Does what a phone request asked of the world; returns the answer to send instead when it failed.
    private func perform(_ effect: RouteEffect) -> HTTPResponse? {
        switch effect {
        case let .openPairingWindow(seconds):
            switch sink.openPairingWindow(for: .seconds(seconds)) {
            case .success:
                logger.notice("Bluetooth pairing window open for \(seconds) s")
                return nil
            case let .failure(error):
                return JSONError(status: 503, code: "unavailable", message: "cannot open a pairing window: \(error)")
                    .response
            }
        }
    }

    // MARK: Lifecycle

    /// Writes pending lazy updates now (shutdown, tests). Returns the error when the write failed.
    @discardableResult
    package func flush() -> BoardStateError? {
        inner.withLock { inner -> BoardStateError? in
            guard inner.tasksDirty else { return nil }
            do throws(BoardStateError) {
                try directory.saveTasks(inner.board.store)
                inner.tasksDirty = false
                return nil
            } catch {
                logger.error("could not write tasks: \(error)")
                return error
            }
        }
    }

    /// Proves the engine is not wedged (its lock can be taken and state read), for the watchdog.
    package func isResponsive() -> Bool {
        inner.withLock { $0.board.epoch != 0 }
    }

    /// The last envelope sent, or before the first one a `system` envelope with the current epoch and
    /// the last persisted sequence (what the BLE characteristic's ReadValue answers, CONTRACT.md §2).
    package var readValue: WakeEnvelope {
        inner.withLock { $0.lastEnvelope ?? $0.wakeState.readValueBeforeFirstWake }
    }

    package var epoch: UInt16 { inner.withLock { $0.wakeState.epoch } }

    package var wakeFacts: WakeFacts { inner.withLock { $0.wakeFacts } }

    // MARK: Wakes

    /// A change was accepted: feed the coalescer and do what it says.
    private func noteChange(_ inner: inout Inner) {
        let action = inner.coalescer.changed(at: clock.monotonicNow())
        perform(action, &inner)
    }

    private func perform(_ action: WakeCoalescer.Action, _ inner: inout Inner) {
        switch action {
        case .sendWake:
            sendWake(&inner)
        case let .scheduleDeadline(deadline):
            inner.wakeFacts.coalescedChanges += 1
            timers.schedule(after: deadline - clock.monotonicNow()) { [weak self] in self?.deadlineReached() }
        case .none:
            inner.wakeFacts.coalescedChanges += 1
        }
    }

    private func deadlineReached() {
        inner.withLock { inner in
            perform(inner.coalescer.deadlineReached(at: clock.monotonicNow()), &inner)
        }
    }

    private func sendWake(_ inner: inout Inner) {
        let issue: SequenceReservation.Issue
        do {
            issue = try inner.reservation.next()
        } catch {
            logger.error("wake sequence exhausted in epoch \(inner.wakeState.epoch): \(error)")
            return
        }
        if let mark = issue.mustPersistFirst {
            let state = WakeState(epoch: inner.wakeState.epoch, sequenceHighWater: mark)
            do {
                try directory.saveWake(state)
            } catch {
                // A Wake must never carry a sequence a restart could reuse: skip it, count it.
                inner.wakeFacts.sendFailures += 1
                logger.error("wake \(issue.sequence) not sent: could not persist the sequence mark: \(error)")
                return
            }
            inner.wakeState = state
            inner.reservation.confirmPersisted(highWater: mark)
        }
        let reason = inner.nextReason
        inner.nextReason = .liveActivity
        let envelope = WakeEnvelope(reason: reason, epoch: inner.wakeState.epoch, sequence: issue.sequence)
        inner.lastEnvelope = envelope
        inner.wakeFacts.lastSequence = envelope.sequence
        inner.wakeFacts.lastReason = reason.name
        inner.wakeFacts.lastAt = clock.wallNow()
        switch sink.send(envelope) {
        case .success:
            inner.wakeFacts.sent += 1
            logger.debug("wake \(envelope)")
        case let .failure(error):
            inner.wakeFacts.sendFailures += 1
            logger.warning("wake \(envelope.sequence) not delivered: \(error)")
        }
    }

    // MARK: Persistence and retention timers

    private func scheduleLazyWrite(_ inner: inout Inner) {
        inner.tasksDirty = true
        guard !inner.lazyWriteScheduled else { return }
        inner.lazyWriteScheduled = true
        timers.schedule(after: settings.lazyWriteDelay) { [weak self] in self?.lazyWriteDue() }
    }

    private func lazyWriteDue() {
        let failed = inner.withLock { inner -> Bool in
            inner.lazyWriteScheduled = false
            guard inner.tasksDirty else { return false }
            do {
                try directory.saveTasks(inner.board.store)
                inner.tasksDirty = false
                return false
            } catch {
                logger.error("could not write tasks (will retry): \(error)")
                return true
            }
        }
        if failed {
            inner.withLock { scheduleLazyWrite(&$0) }
        }
    }

    /// Ended tasks leave the phone's card when their retention ends: the store changes, so phones
    /// get a Wake and fetch (and see `not_found`).
    private func pruneExpired(_ inner: inout Inner) {
        let now = clock.wallNow()
        guard let due = inner.nextExpiry, due <= now else { return }
        let removed = inner.board.store.prune(now: now, retention: settings.retention)
        inner.nextExpiry = inner.board.store.nextExpiry(retention: settings.retention)
        guard !removed.isEmpty else { return }
        logger.info("retention ended for \(removed.joined(separator: ", "))")
        scheduleLazyWrite(&inner)
        noteChange(&inner)
    }

    private func scheduleExpiry(_ inner: inout Inner) {
        inner.nextExpiry = inner.board.store.nextExpiry(retention: settings.retention)
        guard let expiry = inner.nextExpiry else { return }
        if let scheduled = inner.expiryScheduledFor, scheduled <= expiry { return }
        inner.expiryScheduledFor = expiry
        let delay = max(0, expiry.timeIntervalSince(clock.wallNow())) + 0.001
        timers.schedule(after: .milliseconds(Int64(delay * 1000))) { [weak self] in self?.expiryDue() }
    }

    private func expiryDue() {
        inner.withLock { inner in
            inner.expiryScheduledFor = nil
            pruneExpired(&inner)
            scheduleExpiry(&inner)
        }
    }

    // MARK: Facts and logs

    private func facts(_ inner: Inner, usb: USBLinkFacts?) -> BoardFacts {
        BoardFacts(
            version: settings.version, instanceID: instanceID,
            uptimeSeconds: Int(clock.monotonicNow().components.seconds),
            liveActivityEnabled: settings.liveActivityEnabled, retention: settings.retention,
            wake: inner.wakeFacts, bluetooth: sink.bluetoothFacts(),
            usb: usb ?? USBLinkFacts(link: "unknown"))
    }

    private static func needsUSBFacts(_ path: String) -> Bool { path == "/status" || path == "/v1/status" }

    private func logDenial(_ denial: AccessPolicy.Denial, request: HTTPRequest, _ inner: inout Inner) {
        guard case let .allowed(suppressed) = inner.denialLog.take(at: clock.monotonicNow()) else { return }
        let more = suppressed > 0 ? " (\(suppressed) more refused since the last report)" : ""
        logger.notice("403 \(request.method) \(request.path) from \(request.peer): \(denial)\(more)")
    }
}
