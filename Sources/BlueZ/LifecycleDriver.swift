import DBusModel
import Platform
import Synchronization

/// The events every BlueZ lifecycle takes, whichever side of the link it plays: who owns `org.bluez`,
/// bluetoothd's signals, and its one timer.
protocol BlueZLifecycle: Sendable {
    associatedtype Action: Sendable

    /// When `timerFired` is due next; nil: no timer.
    var nextDeadline: Duration? { get }
    /// The unique name that owns `org.bluez` as the lifecycle last heard (nil: nobody, or not known yet).
    var bluezOwnerName: String? { get }

    mutating func bluezOwnerChanged(_ owner: String?, at now: Duration) -> [Action]
    mutating func received(_ signal: BlueZSignal, at now: Duration) -> [Action]
    mutating func timerFired(at now: Duration) -> [Action]
}

extension PeripheralLifecycle: BlueZLifecycle {}
extension CentralLifecycle: BlueZLifecycle {}

/// Drives one pure lifecycle for a BlueZ shell (`GattPeripheral`, `WakeCentral`): follows bluetoothd's name
/// and signals, feeds every event to the lifecycle, keeps the lifecycle's one timer armed on the runtime, and
/// hands the actions (with the lifecycle as the event left it) to the shell.
///
/// Every event is handed to the runtime's executor (the bus thread and answers of spawned bus calls enqueue; the
/// board engine's pairing lane, asking for a window for an HTTP request, waits there for the answer), so events are applied and their actions
/// performed one at a time, in the order they arrived, with a clock that never goes backwards between them.
final class LifecycleDriver<Lifecycle: BlueZLifecycle>: Sendable {
    /// Performs `actions`; `after` is the lifecycle as the event left it, at `now`.
    typealias Perform = @Sendable (_ actions: [Lifecycle.Action], _ after: Lifecycle, _ now: Duration) -> Void

    private struct State: Sendable {
        var lifecycle: Lifecycle
        var perform: Perform?
        var tokens: [DBusMatchToken] = []
        /// A `NameOwnerChanged` arrived: a later `GetNameOwner` answer is older than it.
        var ownerSignalSeen = false
        var timer = TimerSlot()
        var stopped = false
    }

    /// How many distinct spoofing senders are named in a warning; later ones are logged at debug level.
    private static var spooferWarnings: Int { 16 }

    private let bus: any MessageBus
    private let runtime: any Runtime
    private let logger: Logger
    private let state: Mutex<State>
    /// Senders already warned about for a spoofed signal (bounded), so a flood logs once per sender. Its own
    /// lock: it is touched from inside an event, which runs under `state`'s.
    private let spoofers = Mutex<Set<String>>([])

    init(_ lifecycle: Lifecycle, bus: any MessageBus, runtime: any Runtime, logger: Logger) {
        self.bus = bus
        self.runtime = runtime
        self.logger = logger
        state = Mutex(State(lifecycle: lifecycle))
    }

    /// Who performs the actions: the shell, once its own initialisation is done (it holds this driver).
    func attach(_ perform: @escaping Perform) {
        state.withLock { $0.perform = perform }
    }

    /// Subscribes to `org.bluez`'s owner, its ObjectManager signals and the `PropertiesChanged` under
    /// `adapterPath`, then asks who owns `org.bluez`; the lifecycle goes on from there. Throws when a match
    /// cannot be added.
    func start(adapterPath: DBusObjectPath, callTimeout: Duration) async throws(DBusError) {
        var tokens: [DBusMatchToken] = []
        tokens.append(
            try await bus.watchNameOwner(BlueZNames.service) { [weak self] owner in
                self?.ownerChanged(owner)
            })
        tokens.append(
            try await bus.addMatch(
                DBusMatchRule(sender: BlueZNames.service, interface: DBusStandardInterfaces.objectManager, path: .root)
            ) { [weak self] message in self?.signalArrived(message) })
        tokens.append(
            try await bus.addMatch(.propertiesChanged(sender: BlueZNames.service, pathNamespace: adapterPath)) {
                [weak self] message in self?.signalArrived(message)
            })
        state.withLock { $0.tokens = tokens }

        let owner: String?
        do {
            owner = try await bus.nameOwner(BlueZNames.service, timeout: callTimeout)
        } catch {
            logger.warning("cannot ask the bus who owns org.bluez: \(error)")
            owner = nil
        }
        if state.withLock({ !$0.ownerSignalSeen }) {
            post { lifecycle, now in lifecycle.bluezOwnerChanged(owner, at: now) }
        }
    }

    /// Stops feeding the lifecycle, cancels its timer and removes the subscriptions; returns the lifecycle as
    /// it was, for what the shell still has to undo on the bus.
    func stop() async -> Lifecycle {
        let (tokens, lifecycle) = state.withLock { state in
            state.stopped = true
            state.timer.cancel()
            defer { state.tokens = [] }
            return (state.tokens, state.lifecycle)
        }
        for token in tokens { await bus.removeMatch(token) }
        return lifecycle
    }

    /// Hands one event to the executor, which feeds it to the lifecycle, re-arms the timer and performs
    /// the actions. Does nothing once stopped.
    func post(_ event: @escaping @Sendable (inout Lifecycle, Duration) -> [Lifecycle.Action]) {
        runtime.enqueue { [weak self] in self?.apply(event) }
    }

    /// One event whose answer the caller waits for (an HTTP request for a pairing window, which must say when
    /// it closes): applied on the executor like every other event, after those handed over before it, and its
    /// actions performed there. nil once stopped. Call it from another thread, never from the executor.
    func request<Value: Sendable>(
        _ event: @escaping @Sendable (inout Lifecycle, Duration) -> (Value, [Lifecycle.Action])
    ) -> Value? {
        runtime.perform { [self] in apply(event) }
    }

    /// One event on the executor.
    private func apply(_ event: (inout Lifecycle, Duration) -> [Lifecycle.Action]) {
        _ = apply { lifecycle, now in ((), event(&lifecycle, now)) }
    }

    private func apply<Value: Sendable>(
        _ event: (inout Lifecycle, Duration) -> (Value, [Lifecycle.Action])
    ) -> Value? {
        let now = runtime.monotonicNow()
        let outcome = state.withLock { state -> (Value, [Lifecycle.Action], Lifecycle, Perform?)? in
            guard !state.stopped else { return nil }
            let (value, actions) = event(&state.lifecycle, now)
            state.timer.update(to: state.lifecycle.nextDeadline, runtime: runtime) { [weak self] deadline in
                self?.timerFired(deadline)
            }
            return (value, actions, state.lifecycle, state.perform)
        }
        guard let (value, actions, after, perform) = outcome else { return nil }
        perform?(actions, after, now)
        return value
    }

    /// Reads (or changes, without actions) the lifecycle under the lock.
    func withLifecycle<Value>(_ body: (inout Lifecycle) -> Value) -> Value {
        state.withLock { body(&$0.lifecycle) }
    }

    private func ownerChanged(_ owner: String?) {
        state.withLock { $0.ownerSignalSeen = true }
        logger.notice(owner.map { "bluetoothd is on the bus as \($0)" } ?? "bluetoothd left the bus")
        post { lifecycle, now in lifecycle.bluezOwnerChanged(owner, at: now) }
    }

    /// A signal is bluetoothd's only when its sender is the current owner of `org.bluez`. The bus filters
    /// broadcasts by the match rule's well-known sender, but a unicast signal addressed to this connection
    /// reaches it whatever the rule says, from anybody on the bus: without this check any local user could
    /// say `Powered=false` to the board or hand the phone a Wake with sequence 2⁶⁴−1. The owner is the one
    /// the lifecycle holds when the signal is applied, which follows `NameOwnerChanged` in bus order.
    private func signalArrived(_ message: DBusMessage) {
        guard let signal = BlueZSignal(message) else { return }
        let sender = message.sender
        post { [weak self] lifecycle, now in
            guard let sender, sender == lifecycle.bluezOwnerName else {
                self?.ignoredSpoofed(message, from: sender, owner: lifecycle.bluezOwnerName)
                return []
            }
            return lifecycle.received(signal, at: now)
        }
    }

    private func ignoredSpoofed(_ message: DBusMessage, from sender: String?, owner: String?) {
        let name = sender ?? "(no sender)"
        let first = spoofers.withLock { spoofers in
            guard spoofers.count < Self.spooferWarnings else { return false }
            return spoofers.insert(name).inserted
        }
        let text =
            "ignored \(message.interface ?? "?").\(message.member ?? "?") on \(message.path?.rawValue ?? "?") from "
            + "\(name): org.bluez is owned by \(owner ?? "nobody")"
        if first {
            logger.warning(text + " (further signals from it are logged at debug level)")
        } else {
            logger.debug(text)
        }
    }

    private func timerFired(_ deadline: Duration) {
        state.withLock { $0.timer.fired(deadline) }
        post { lifecycle, now in lifecycle.timerFired(at: now) }
    }
}
