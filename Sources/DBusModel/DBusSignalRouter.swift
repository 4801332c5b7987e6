import Synchronization

/// The signal handlers of one connection (real or fake), each with its match rule.
package final class DBusSignalRouter: Sendable {
    package typealias Handler = @Sendable (DBusMessage) -> Void

    private struct Subscription: Sendable {
        let rule: DBusMatchRule
        let handler: Handler
    }

    private struct State: Sendable {
        var nextID: UInt64 = 1
        var subscriptions: [UInt64: Subscription] = [:]
    }

    private let state = Mutex(State())

    package init() {}

    package func add(_ rule: DBusMatchRule, handler: @escaping Handler) -> DBusMatchToken {
        state.withLock { state in
            let id = state.nextID
            state.nextID += 1
            state.subscriptions[id] = Subscription(rule: rule, handler: handler)
            return DBusMatchToken(id: id)
        }
    }

    /// Removes a handler and returns its rule (nil when the token is unknown or already removed).
    package func remove(_ token: DBusMatchToken) -> DBusMatchRule? {
        state.withLock { $0.subscriptions.removeValue(forKey: token.id)?.rule }
    }

    /// Calls every handler whose rule matches, in the order they were added; outside the lock, so a handler may
    /// add or remove handlers.
    package func deliver(_ message: DBusMessage) {
        let handlers = state.withLock { state in
            state.subscriptions.sorted { $0.key < $1.key }.filter { $0.value.rule.matches(message) }.map(
                \.value.handler)
        }
        for handler in handlers { handler(message) }
    }
}
