import Platform
import Synchronization

/// A daemon's live status line for the service manager (`STATUS=`, what `systemctl status` shows), sent only
/// when it changed: the daemon calls `changed()` after each step that may alter it, the board also when its Wake
/// transport tells of a change (`WakeSink.observeFacts`). Nothing looks at the line on a timer, so an idle daemon
/// never wakes for it: each line names times, not ages, and stays true. The one status loop of both daemons;
/// `line` and `send` run on the daemon's executor.
package final class StatusReporter: Sendable {
    private struct Reporting {
        /// The line as it is now; nil when its owner is gone (the owner holds the reporter, not the reverse).
        var line: @Sendable () -> String?
        var send: @Sendable (String) -> Void
        var last: String?
    }

    private let runtime: any Runtime
    /// Touched on the executor only (the lock makes it `Sendable`); nil until `start`.
    private let state = Mutex<Reporting?>(nil)

    package init(runtime: any Runtime) {
        self.runtime = runtime
    }

    /// Sends `line` to `send` now, and after each change when it changed. Called from another thread than the
    /// executor (the daemon's start): it returns once the first line is sent.
    package func start(line: @escaping @Sendable () -> String?, _ send: @escaping @Sendable (String) -> Void) {
        runtime.perform { [self] in
            state.withLock { $0 = Reporting(line: line, send: send) }
            report(always: true)
        }
    }

    /// On the executor, after a step that may have changed the line: sends it when it did.
    package func changed() { report(always: false) }

    private func report(always: Bool) {
        guard let line = state.withLock({ $0?.line }), let text = line() else { return }
        let send = state.withLock { reporting -> (@Sendable (String) -> Void)? in
            guard let send = reporting?.send, always || reporting?.last != text else { return nil }
            reporting?.last = text
            return send
        }
        send?(text)
    }
}
