import Platform
import Synchronization

/// A file descriptor written whole text at a time by its own lane, from a bounded backlog: the
/// client's executor and the loggers only hand text over, so a terminal paused with Ctrl-S or a
/// `--json` reader that stopped reading never stalls Wake handling. Text from different threads
/// never interleaves.
///
/// When the reader falls more than `capacity` texts behind, the oldest waiting text is dropped and
/// counted; once writing resumes a line on stderr says how many were lost (never on stdout, which
/// may be a `--json` stream), and `takeLostOutput()` tells the terminal card to start afresh
/// instead of erasing rows it cannot know are there. A closed reader (EPIPE; SIGPIPE is ignored by
/// the daemon) drops the text rather than killing the client.
package final class OutputChannel: Sendable {
    private struct Backlog {
        var pending: [String] = []
        var dropped = 0
        var writing = false
        var lostOutput = false
    }

    package let descriptor: Int32
    private let capacity: Int
    private let backlog = Mutex(Backlog())
    private let lane: Lane

    /// Where the line about dropped writes goes (stderr; tests give their own).
    private let noticeDescriptor: Int32

    package init(descriptor: Int32, capacity: Int = 1_024, noticeDescriptor: Int32 = 2) {
        self.descriptor = descriptor
        self.noticeDescriptor = noticeDescriptor
        self.capacity = max(1, capacity)
        lane = Lane("aiden.phone.output.\(descriptor)")
    }

    package static let standardOutput = OutputChannel(descriptor: 1)
    package static let standardError = OutputChannel(descriptor: 2)

    /// Whether the descriptor is a terminal.
    package var isTerminal: Bool { OutputDescriptor(descriptor).isTerminal }

    /// Columns of the terminal, nil when it is not one or does not say.
    package var terminalColumns: Int? { OutputDescriptor(descriptor).terminalColumns }

    /// Queues `text` to be written; returns at once.
    package func write(_ text: String) {
        let startWriter = backlog.withLock { backlog -> Bool in
            if backlog.pending.count >= capacity {
                backlog.pending.removeFirst()
                backlog.dropped += 1
            }
            backlog.pending.append(text)
            guard !backlog.writing else { return false }
            backlog.writing = true
            return true
        }
        if startWriter { lane.run { [self] in writePending() } }
    }

    /// Waits until everything queued so far is written (shutdown, tests), or at most `limit`:
    /// a reader that never reads must not hold up an exit.
    package func flush(limit: Duration = .seconds(2)) {
        lane.drain(within: limit)
    }

    /// Whether text was dropped since the last call: whatever was drawn on the screen is unknown.
    package func takeLostOutput() -> Bool {
        backlog.withLock { backlog in
            defer { backlog.lostOutput = false }
            return backlog.lostOutput
        }
    }

    private func writePending() {
        while true {
            let (texts, dropped) = backlog.withLock { backlog -> ([String], Int) in
                let taken = (backlog.pending, backlog.dropped)
                backlog.pending.removeAll(keepingCapacity: true)
                backlog.dropped = 0
                if taken.0.isEmpty { backlog.writing = false }
                if taken.1 > 0 { backlog.lostOutput = true }
                return taken
            }
            guard !texts.isEmpty else { return }
            if dropped > 0 {
                let what = descriptor == 1 ? "stdout" : descriptor == 2 ? "stderr" : "descriptor \(descriptor)"
                OutputDescriptor(noticeDescriptor).write(
                    "aiden-phone: \(what) was blocked; \(dropped) writes dropped\n")
            }
            // A reader that is gone drops the text (`OutputDescriptor` waits for one that is only slow).
            for text in texts { OutputDescriptor(descriptor).write(text) }
        }
    }
}
