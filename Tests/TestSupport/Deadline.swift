import Synchronization

package struct DeadlineExceeded: Error, CustomStringConvertible {
    package let what: String

    package init(what: String) {
        self.what = what
    }
    package var description: String { "timed out waiting for \(what)" }
}

/// Runs `body`, failing if it takes longer than `seconds`: a broken bus must fail a test, never hang it.
/// This bounds a wait; it is not a sleep that the test's outcome depends on. `body` runs in a task of its own
/// that is cancelled, not awaited, when the deadline passes (a task group would wait for it forever).
package func withDeadline<T: Sendable>(
    _ seconds: Double, _ what: String, _ body: @escaping @Sendable () async throws -> T
) async throws -> T {
    let outcome = FirstOutcome<T>()
    return try await withCheckedThrowingContinuation { continuation in
        outcome.install(continuation)
        let work = Task {
            do {
                outcome.resolve(.success(try await body()))
            } catch {
                outcome.resolve(.failure(error))
            }
        }
        let timer = Task {
            try await Task.sleep(for: .milliseconds(Int(seconds * 1000)))
            outcome.resolve(.failure(DeadlineExceeded(what: what)))
            work.cancel()
        }
        outcome.onResolve { timer.cancel() }
    }
}

/// Resumes a continuation with whichever outcome comes first.
private final class FirstOutcome<T: Sendable>: Sendable {
    private struct State {
        var continuation: CheckedContinuation<T, any Error>?
        var cleanup: (@Sendable () -> Void)?
        var resolved = false
    }

    private let state = Mutex(State())

    func install(_ continuation: CheckedContinuation<T, any Error>) {
        state.withLock { $0.continuation = continuation }
    }

    func onResolve(_ cleanup: @escaping @Sendable () -> Void) {
        let runNow = state.withLock { state in
            if state.resolved { return true }
            state.cleanup = cleanup
            return false
        }
        if runNow { cleanup() }
    }

    func resolve(_ result: Result<T, any Error>) {
        let (continuation, cleanup) = state.withLock { state in
            guard !state.resolved else {
                return (CheckedContinuation<T, any Error>?.none, (@Sendable () -> Void)?.none)
            }
            state.resolved = true
            defer {
                state.continuation = nil
                state.cleanup = nil
            }
            return (state.continuation, state.cleanup)
        }
        continuation?.resume(with: result)
        cleanup?()
    }
}

/// Collects values handed over from bus-thread handlers, for a test to await one by one (one waiter at a
/// time; a wait that times out ends the mailbox, which only happens in a failing test).
package final class Mailbox<Value: Sendable>: Sendable {
    private let stream: AsyncStream<Value>
    private let continuation: AsyncStream<Value>.Continuation

    package init() {
        (stream, continuation) = AsyncStream.makeStream(of: Value.self)
    }

    package func put(_ value: Value) {
        continuation.yield(value)
    }

    /// The next value, waiting at most `seconds`.
    package func next(within seconds: Double = 5, _ what: String = "a value") async throws -> Value {
        let stream = self.stream
        return try await withDeadline(seconds, what) {
            var iterator = stream.makeAsyncIterator()
            guard let value = await iterator.next() else { throw DeadlineExceeded(what: what) }
            return value
        }
    }
}
