import DBus
import DBusModel
import Synchronization

/// An in-memory `MessageBus` for tests: records a transcript of what the code under test does on the bus,
/// answers its calls from a script, and lets the test play the other side (call exported objects, deliver
/// signals, move name ownership).
///
/// Exported objects answer through the same registry as `DBusConnection` (same errors, same standard
/// interfaces), and every outgoing message is marshalled through libdbus (no bus), so a value the real bus
/// would refuse fails here too. Nothing waits on a clock: a scripted timeout fails at once.
package final class FakeMessageBus: BusConnection {
    /// One thing the code under test did on the bus, or that the test did to it.
    package enum Event: Sendable, Hashable, CustomStringConvertible {
        /// The code under test called a method.
        case called(DBusMessage)
        /// The code under test emitted a signal (including `InterfacesAdded`/`Removed` from exports).
        case emitted(DBusMessage)
        case exported(DBusObjectPath, interfaces: [String])
        case unexported(DBusObjectPath)
        case matchAdded(DBusMatchRule)
        case matchRemoved(DBusMatchRule)
        /// The test called an exported method (`deliverCall`) ...
        case received(DBusMessage)
        /// ... and this is what the exported object answered.
        case replied(DBusMessage)

        package var description: String {
            switch self {
            case .called(let message): "call " + Self.describe(message)
            case .emitted(let message): "emit " + Self.describe(message)
            case .exported(let path, let interfaces): "export \(path) [\(interfaces.joined(separator: ", "))]"
            case .unexported(let path): "unexport \(path)"
            case .matchAdded(let rule): "match \(rule)"
            case .matchRemoved(let rule): "unmatch \(rule)"
            case .received(let message): "receive " + Self.describe(message)
            case .replied(let message):
                message.type == .error
                    ? "error \(message.errorName ?? "?")" : "return (" + Self.arguments(message.body) + ")"
            }
        }

        private static func describe(_ message: DBusMessage) -> String {
            let destination = message.destination.map { "\($0) " } ?? ""
            let path = message.path.map { "\($0) " } ?? ""
            return destination + path + message.memberDescription + "(" + arguments(message.body) + ")"
        }

        private static func arguments(_ body: [DBusValue]) -> String {
            body.map(\.description).joined(separator: ", ")
        }
    }

    /// Answers a call of the code under test: values for a method return, or an error.
    package typealias Responder = @Sendable (DBusMessage) throws(DBusError) -> [DBusValue]
    /// Answers after awaiting something (the test playing bluetoothd mid-call, e.g. asking an agent during
    /// `Pair`).
    package typealias LaterResponder = @Sendable (DBusMessage) async throws(DBusError) -> [DBusValue]

    private struct Key: Hashable {
        let interface: String?
        let member: String
    }

    private struct State: Sendable {
        var transcript: [Event] = []
        var queued: [Key: [Result<[DBusValue], DBusError>]] = [:]
        var responders: [Key: Responder] = [:]
        var laterResponders: [String: LaterResponder] = [:]
        /// The timeout of the last call of each member.
        var callTimeouts: [String: Duration] = [:]
        var nameOwners: [String: String] = [:]
        var matches: [DBusMatchToken: DBusMatchRule] = [:]
        var serial: UInt32 = 0
        var connected = true
        var disconnectHandlers: [@Sendable () -> Void] = []
    }

    package let uniqueName: String
    private let registry = DBusObjectRegistry()
    private let router = DBusSignalRouter()
    private let state = Mutex(State())

    package init(uniqueName: String = ":1.1") {
        self.uniqueName = uniqueName
    }

    // MARK: Scripting (the test's side)

    /// Everything recorded so far, in order.
    package var transcript: [Event] { state.withLock { $0.transcript } }

    /// The transcript as one line per event (easy to compare with an expected list).
    package var transcriptLines: [String] { transcript.map(\.description) }

    package func clearTranscript() {
        state.withLock { $0.transcript.removeAll() }
    }

    /// Queues one answer for the next call of `member` (of `interface`, or of any interface when nil).
    /// Queued answers are used first, in order; then `respond(to:)` handlers.
    package func enqueueReply(
        to member: String, interface: String? = nil, _ reply: Result<[DBusValue], DBusError>
    ) {
        state.withLock { $0.queued[Key(interface: interface, member: member), default: []].append(reply) }
    }

    /// Answers every call of `member` (of `interface`, or of any interface when nil) with `responder`.
    package func respond(to member: String, interface: String? = nil, with responder: @escaping Responder) {
        state.withLock { $0.responders[Key(interface: interface, member: member)] = responder }
    }

    /// Answers every call of `member` (of any interface) with `responder`, which may await before answering;
    /// used before `respond(to:)` and queued answers.
    package func respondLater(to member: String, with responder: @escaping LaterResponder) {
        state.withLock { $0.laterResponders[member] = responder }
    }

    /// Sets who owns `name` (nil: nobody) and delivers `NameOwnerChanged` as the bus would.
    package func setNameOwner(_ name: String, to owner: String?) {
        let previous = state.withLock { state in
            defer { state.nameOwners[name] = owner }
            return state.nameOwners[name]
        }
        guard previous != owner else { return }
        deliverSignal(
            DBusMessage(
                type: .signal, path: DBusStandardInterfaces.busPath, interface: DBusStandardInterfaces.busInterface,
                member: "NameOwnerChanged", sender: DBusStandardInterfaces.busName,
                body: [.string(name), .string(previous ?? ""), .string(owner ?? "")]))
    }

    /// Delivers a signal to the matching handlers, synchronously (as the bus thread would, one at a time).
    package func deliverSignal(_ signal: DBusMessage) {
        router.deliver(signal)
    }

    /// Calls a method of an exported object as a peer would (bluetoothd calling `GetManagedObjects`,
    /// `StartNotify`, `ReadValue`) and returns the answer: a method return or an error message.
    @discardableResult
    package func deliverCall(_ call: DBusMessage) async -> DBusMessage {
        var call = call
        if call.serial == 0 { call.serial = nextSerial() }
        if call.sender == nil { call.sender = ":1.0" }
        record(.received(call))
        let reply: DBusMessage =
            switch registry.dispatch(call) {
            case .reply(let reply): reply
            case .deferred(let work): await work()
            }
        record(.replied(reply))
        return reply
    }

    /// Convenience for `deliverCall`: the reply's body, or its error thrown.
    package func callExported(
        path: DBusObjectPath, interface: String?, member: String, _ body: [DBusValue] = []
    ) async throws(DBusError) -> [DBusValue] {
        let reply = await deliverCall(
            .methodCall(destination: uniqueName, path: path, interface: interface, member: member, body: body))
        if let error = reply.error { throw error }
        return reply.body
    }

    /// The paths currently exported.
    package var exportedPaths: [DBusObjectPath] { registry.exportedPaths }

    /// The match rules currently added.
    package var activeMatches: [DBusMatchRule] {
        state.withLock { $0.matches.sorted { $0.key.id < $1.key.id }.map(\.value) }
    }

    /// The bus goes away (dbus-daemon restarted): `onDisconnect` handlers run once, and calls fail with
    /// `Disconnected` from now on.
    package func disconnect() {
        let handlers = state.withLock { state -> [@Sendable () -> Void] in
            guard state.connected else { return [] }
            state.connected = false
            defer { state.disconnectHandlers = [] }
            return state.disconnectHandlers
        }
        for handler in handlers { handler() }
    }

    /// Whether `disconnect()` or `close()` has happened.
    package var isConnected: Bool { state.withLock { $0.connected } }

    // MARK: BusConnection (the code under test's side)

    package func onDisconnect(_ handler: @escaping @Sendable () -> Void) {
        let now = state.withLock { state -> Bool in
            guard state.connected else { return true }
            state.disconnectHandlers.append(handler)
            return false
        }
        if now { handler() }
    }

    package func close() { disconnect() }

    /// The timeout the code under test gave its last call of `member` (nil: it made none).
    package func lastTimeout(of member: String) -> Duration? { state.withLock { $0.callTimeouts[member] } }

    // MARK: MessageBus (the code under test's side)

    package func call(_ message: DBusMessage, timeout: Duration) async throws(DBusError) -> DBusMessage {
        guard message.type == .methodCall else { throw .invalidArgs("only a method call can be awaited") }
        guard isConnected else { throw .disconnected("the fake bus was disconnected") }
        try checkMarshals(message)
        var message = message
        message.sender = uniqueName
        message.serial = nextSerial()
        record(.called(message))
        let later = state.withLock { state in
            state.callTimeouts[message.member ?? ""] = timeout
            return state.laterResponders[message.member ?? ""]
        }
        let values: [DBusValue]
        if let later { values = try await later(message) } else { values = try answer(message) }
        let reply = DBusMessage(
            type: .methodReturn, destination: uniqueName, sender: message.destination ?? ":1.0",
            serial: nextSerial(), replySerial: message.serial, body: values)
        try checkMarshals(reply)
        return reply
    }

    package func emit(_ signal: DBusMessage) throws(DBusError) {
        guard signal.type == .signal else { throw .invalidArgs("emit needs a signal, got a \(signal.type)") }
        try checkMarshals(signal)
        var signal = signal
        signal.sender = uniqueName
        record(.emitted(signal))
    }

    package func export(_ object: any DBusObject, at path: DBusObjectPath) throws(DBusError) {
        let announcements = try registry.export(object, at: path)
        record(.exported(path, interfaces: object.interfaces.map(\.name)))
        for announcement in announcements { try emit(announcement) }
    }

    package func unexport(_ path: DBusObjectPath) {
        guard registry.node(at: path) != nil else { return }
        let announcements = registry.unexport(path)
        record(.unexported(path))
        for announcement in announcements { try? emit(announcement) }
    }

    package func addMatch(
        _ rule: DBusMatchRule, handler: @escaping @Sendable (DBusMessage) -> Void
    ) async throws(DBusError) -> DBusMatchToken {
        try rule.validate()
        let token = router.add(rule, handler: handler)
        state.withLock { $0.matches[token] = rule }
        record(.matchAdded(rule))
        return token
    }

    package func removeMatch(_ token: DBusMatchToken) async {
        guard let rule = router.remove(token) else { return }
        state.withLock { $0.matches[token] = nil }
        record(.matchRemoved(rule))
    }

    // MARK: Internals

    private func answer(_ message: DBusMessage) throws(DBusError) -> [DBusValue] {
        let member = message.member ?? ""
        let keys = [Key(interface: message.interface, member: member), Key(interface: nil, member: member)]
        let scripted = state.withLock { state -> (Result<[DBusValue], DBusError>?, Responder?) in
            for key in keys {
                if var queue = state.queued[key], !queue.isEmpty {
                    let first = queue.removeFirst()
                    state.queued[key] = queue
                    return (first, nil)
                }
            }
            for key in keys {
                if let responder = state.responders[key] { return (nil, responder) }
            }
            return (nil, nil)
        }
        if let reply = scripted.0 { return try reply.get() }
        if let responder = scripted.1 { return try responder(message) }
        if message.destination == DBusStandardInterfaces.busName { return try answerAsBus(message) }
        throw DBusError(
            name: DBusError.Names.unknownMethod,
            message: "FakeMessageBus: nothing scripted for \(message.memberDescription) "
                + "at \(message.path?.rawValue ?? "?") on \(message.destination ?? "?")")
    }

    /// The bus's own methods, from the fake's name table: names requested here are owned at once.
    private func answerAsBus(_ message: DBusMessage) throws(DBusError) -> [DBusValue] {
        switch message.member {
        case "GetNameOwner":
            let name = try message.arguments("s")[0].stringValue ?? ""
            guard let owner = state.withLock({ $0.nameOwners[name] }) else {
                throw DBusError(
                    name: DBusError.Names.nameHasNoOwner, message: "Could not get owner of name '\(name)': no such name"
                )
            }
            return [.string(owner)]
        case "NameHasOwner":
            let name = try message.arguments("s")[0].stringValue ?? ""
            return [.boolean(state.withLock { $0.nameOwners[name] != nil })]
        case "RequestName":
            let name = try message.arguments("su")[0].stringValue ?? ""
            let owner = state.withLock { $0.nameOwners[name] }
            if owner == uniqueName { return [.uint32(DBusRequestNameReply.alreadyOwner.rawValue)] }
            if owner != nil { return [.uint32(DBusRequestNameReply.exists.rawValue)] }
            setNameOwner(name, to: uniqueName)
            return [.uint32(DBusRequestNameReply.primaryOwner.rawValue)]
        case "ReleaseName":
            let name = try message.arguments("s")[0].stringValue ?? ""
            guard state.withLock({ $0.nameOwners[name] }) == uniqueName else { return [.uint32(3)] }
            setNameOwner(name, to: nil)
            return [.uint32(1)]
        default:
            throw DBusError(
                name: DBusError.Names.unknownMethod,
                message: "FakeMessageBus: the bus method \(message.memberDescription) is not modelled")
        }
    }

    /// Marshals through libdbus without a bus: what the real connection would refuse is refused here.
    private func checkMarshals(_ message: DBusMessage) throws(DBusError) {
        var probe = message
        if probe.type == .methodReturn || probe.type == .error, probe.replySerial == 0 { probe.replySerial = 1 }
        _ = try probe.wireBytes(serial: 1)
    }

    private func nextSerial() -> UInt32 {
        state.withLock { state in
            state.serial &+= 1
            if state.serial == 0 { state.serial = 1 }
            return state.serial
        }
    }

    private func record(_ event: Event) {
        state.withLock { $0.transcript.append(event) }
    }
}
