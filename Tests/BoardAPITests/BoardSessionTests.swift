import FoundationEssentials
import LiveActivity
import Testing
import WakeProtocol

@testable import BoardAPI

/// The board's writer as timelines: what goes in at which millisecond, what comes out in which order. The promises
/// it keeps: durable before seen, seen before its Wake, answered after both; at most one Wake a 750 ms window and the
/// last change always followed by one; no Wake past a mark that is not durable.
@Suite struct BoardSessionTests {
    /// The trace without the per-Wake debug lines.
    static func lines(_ driver: BoardSessionDriver) -> [String] {
        driver.trace.filter { !$0.hasPrefix("log debug") }
    }

    @Test func theStartIsAnnouncedWithASystemWakeAfterItsMarkIsDurable() {
        var driver = BoardSessionDriver()
        driver.send(.started)
        #expect(Self.lines(driver) == ["save mark 1024", "publish board", "wake system 1"])
        #expect(driver.trace.last == "log debug: wake \(WakeEnvelope(reason: .system, epoch: 4660, sequence: 1))")
        #expect(driver.session.wakeState == WakeState(epoch: 4660, sequenceHighWater: 1024))
        #expect(driver.lastWakeFacts?.sent == 1)
        #expect(driver.lastWakeFacts?.lastSequence == 1)
    }

    @Test func aStartIsDurableThenPublishedThenWokenThenAnswered() throws {
        var driver = BoardSessionDriver()
        driver.send(.started)
        driver.clearTrace()
        driver.advance(to: 1000)
        let reply = driver.start("chat_1")
        #expect(
            Self.lines(driver) == [
                "save tasks", "publish board", "wake live_activity 2", "arm expiry at 301000 ms",
                "log info: task chat_1 started (any phone)", "respond 0: 201",
            ])
        let saved = try #require(driver.savedStores.last)
        #expect(saved.task(id: "chat_1") != nil, "the task was in the file before anyone saw it")
        let published = try #require(driver.published.last?.board)
        #expect(published.store.task(id: "chat_1") != nil)
        #expect(driver.responses[reply]?.status == 201)
        #expect(!driver.session.tasksDirty)
    }

    @Test func aFailedSaveChangesNothingAndSaysSo() throws {
        var driver = BoardSessionDriver()
        driver.send(.started)
        driver.clearTrace()
        driver.advance(to: 1000)
        driver.tasksSave = .failed("No space left on device")
        let reply = driver.start("chat_1")
        let lines = Self.lines(driver)
        #expect(lines.count == 3)
        #expect(lines.first == "save tasks")
        #expect(lines[1].hasPrefix("log error:") && lines[1].contains("No space left on device"))
        #expect(lines.last == "respond 0: 503")
        let body = String(decoding: try #require(driver.responses[reply]).body, as: UTF8.self)
        #expect(body.contains(#""storage_failed""#))
        #expect(driver.session.board.store.task(id: "chat_1") == nil)
        #expect(driver.published.count == 1, "only the start's publication")
    }

    @Test func aChangeInTheFileButNotKnownDurableStandsAndIsWrittenAgain() throws {
        var driver = BoardSessionDriver()
        driver.send(.started)
        driver.clearTrace()
        driver.advance(to: 1000)
        driver.tasksSave = .inPlace("fsync of the directory: Input/output error")
        let reply = driver.start("chat_1")
        let lines = Self.lines(driver)
        #expect(lines.first == "save tasks")
        #expect(lines[1].hasPrefix("log error:"))
        #expect(
            Array(lines.dropFirst(2)) == [
                "arm lazyWrite at 2000 ms", "publish board", "wake live_activity 2", "arm expiry at 301000 ms",
                "log info: task chat_1 started (any phone)", "respond 0: 503",
            ])
        let body = String(decoding: try #require(driver.responses[reply]).body, as: UTF8.self)
        #expect(body.contains(#""storage_unconfirmed""#))
        #expect(driver.session.tasksDirty)
        driver.tasksSave = .saved
        driver.clearTrace()
        driver.advance(to: 2000)
        #expect(driver.trace.first == "save tasks")
        #expect(!driver.session.tasksDirty)
    }

    /// Progress 100 ms apart: the first is woken at once, the next two ride one Wake at the window's end, and the
    /// lazy write follows a second after the first.
    @Test func progressIsCoalescedAndTheLastChangeIsAlwaysWoken() {
        var driver = BoardSessionDriver()
        driver.send(.started)
        driver.advance(to: 1000)
        driver.start("chat_1")
        driver.clearTrace()
        let rows: [(at: Int64, step: String, trace: [String])] = [
            (
                1100, "a",
                ["arm lazyWrite at 2100 ms", "arm wakeDeadline at 1750 ms", "publish board", "respond 1: 200"]
            ),
            (1200, "b", ["publish board", "respond 2: 200"]),
        ]
        for row in rows {
            driver.advance(to: row.at)
            driver.clearTrace()
            driver.agent("PATCH", "/v1/tasks/chat_1", body: #"{"current_step":"\#(row.step)"}"#)
            #expect(Self.lines(driver) == row.trace, "at \(row.at) ms")
        }
        #expect(driver.lastWakeFacts?.coalescedChanges == 2)
        driver.clearTrace()
        driver.advance(to: 1750)
        #expect(Self.lines(driver) == ["publish facts", "wake live_activity 3"])
        #expect(driver.lastWakeFacts?.lastSequence == 3)
        driver.clearTrace()
        driver.advance(to: 2100)
        #expect(driver.trace == ["save tasks"])
        #expect(driver.savedStores.last?.task(id: "chat_1")?.currentStep == "b")
    }

    @Test func aWakeTheTransportRefusesMovesFromSentToFailures() {
        var driver = BoardSessionDriver()
        driver.send(.started)
        driver.advance(to: 1000)
        driver.delivery = "not registered with bluetoothd"
        driver.clearTrace()
        driver.start("chat_1")
        let lines = Self.lines(driver)
        #expect(Array(lines.prefix(3)) == ["save tasks", "publish board", "wake live_activity 2"])
        #expect(driver.published[driver.published.count - 2].wake.sent == 2, "counted as it went out")
        #expect(lines[3].hasPrefix("log warning:") && lines[3].contains("wake 2 not delivered"))
        #expect(lines[4] == "publish facts")
        #expect(driver.lastWakeFacts?.sent == 1)
        #expect(driver.lastWakeFacts?.sendFailures == 1)
    }

    @Test func noWakeGoesOutPastAMarkThatIsNotDurable() {
        var driver = BoardSessionDriver()
        driver.markSave = .failed("Read-only file system")
        driver.send(.started)
        let lines = Self.lines(driver)
        #expect(lines.count == 3)
        #expect(lines[0] == "save mark 1024")
        #expect(lines[1].hasPrefix("log error:") && lines[1].contains("wake 1 not sent"))
        #expect(lines[2] == "publish board")
        #expect(driver.sentWakes.isEmpty)
        #expect(driver.lastWakeFacts?.sendFailures == 1)
        // The next change tries the mark again and, once it is durable, sends: the first Wake out still says the board
        // started.
        driver.markSave = .saved
        driver.advance(to: 1000)
        driver.clearTrace()
        driver.start("chat_1")
        #expect(
            Array(Self.lines(driver).prefix(5)) == [
                "save tasks", "save mark 1025",
                "log notice: persisting the Wake sequence mark works again, after failing once over 1 s",
                "publish board", "wake system 2",
            ])
    }

    @Test func aHeldWaitIsAnsweredByThePublicationThatDecidesIt() {
        var driver = BoardSessionDriver()
        driver.send(.started)
        driver.advance(to: 1000)
        driver.start("chat_w")
        driver.clearTrace()
        let held = driver.agent("GET", "/v1/tasks/chat_w/wait?for=end&timeout=20", mayHold: true)
        #expect(driver.trace == ["arm wait(0) at 21000 ms"])
        #expect(driver.session.heldWaits == 1)
        driver.advance(to: 2000)
        driver.clearTrace()
        let end = driver.agent("POST", "/v1/tasks/chat_w/end", body: #"{"status":"completed"}"#)
        let lines = Self.lines(driver)
        #expect(Array(lines.prefix(4)) == ["save tasks", "publish board", "cancel wait(0)", "respond \(held): 200"])
        #expect(lines.contains("wake live_activity 3"))
        #expect(lines.last == "respond \(end): 200")
        #expect(driver.session.heldWaits == 0)
    }

    @Test func aHeldWaitIsAnsweredAtItsTimeout() {
        var driver = BoardSessionDriver()
        driver.send(.started)
        driver.advance(to: 1000)
        driver.start("chat_w")
        let held = driver.agent("GET", "/v1/tasks/chat_w/wait?for=end&timeout=1", mayHold: true)
        driver.clearTrace()
        driver.advance(to: 2000)
        #expect(driver.trace == ["respond \(held): 200"])
        #expect(driver.session.heldWaits == 0)
        // Without `mayHold` (the synchronous shell) the same request is answered at once.
        driver.clearTrace()
        let now = driver.agent("GET", "/v1/tasks/chat_w/wait?for=end&timeout=1")
        #expect(driver.trace == ["respond \(now): 200"])
    }

    @Test func anAbandonedTaskEndsOnlyOnceItsEndIsDurable() {
        var driver = BoardSessionDriver()
        driver.send(.started)
        driver.advance(to: 1000)
        driver.start("chat_1", extra: #","stale_after_seconds":10,"abandon_after_seconds":20"#)
        #expect(driver.timers[.expiry] == .seconds(11))
        driver.clearTrace()
        driver.advance(to: 11_000)
        #expect(
            Self.lines(driver) == [
                "arm lazyWrite at 12000 ms", "log info: task chat_1: no news from its agent for 10 s, shown as stale",
                "publish board", "wake live_activity 3", "arm expiry at 21000 ms",
            ])
        driver.tasksSave = .failed("No space left on device")
        driver.clearTrace()
        driver.advance(to: 21_000)
        let failing = Self.lines(driver)
        #expect(failing.contains("save tasks"))
        #expect(!failing.contains("publish board"), "an end that is not durable is not seen")
        #expect(driver.timers[.expiry] == .seconds(26), "tried again 5 s later")
        #expect(driver.session.board.store.task(id: "chat_1")?.status == .running)
        driver.tasksSave = .saved
        driver.clearTrace()
        driver.advance(to: 26_000)
        let ended = Self.lines(driver)
        #expect(ended.contains { $0.hasPrefix("log notice: task chat_1 ended failed") })
        #expect(ended.contains("publish board"))
        #expect(driver.session.board.store.task(id: "chat_1")?.status == .failed)
    }

    /// The shell reads `/v1/status`'s facts before the session does the work that is due ahead of the request; a
    /// Wake that work sends is in the answer all the same.
    @Test func statusAfterDueWorkReportsTheWakeThatWorkSent() throws {
        var driver = BoardSessionDriver()
        driver.send(.started)
        driver.advance(to: 1000)
        driver.start("chat_1", extra: #","stale_after_seconds":10"#)
        driver.advance(to: 11_000, firing: false)
        driver.clearTrace()
        let reply = driver.agent("GET", "/v1/status")
        #expect(Array(Self.lines(driver).suffix(2)) == ["wake live_activity 3", "respond \(reply): 200"])
        let body = try #require(driver.responses[reply]).body
        let status = try JSONDecoder().decode(JSON.self, from: Data(body))
        #expect(status["wake"]?["last_seq"] == .number(3))
        #expect(status["wake"]?["sent"] == .number(3))
    }

    @Test func aResultNothingWaitsForIsLoggedAndIgnored() {
        var driver = BoardSessionDriver()
        driver.send(.tasksSaved(.saved))
        driver.send(.wakeDelivered(failure: nil))
        #expect(
            driver.trace == [
                "log error: board: tasks.json saved, but nothing waited for it (ignored)",
                "log error: board: Wake delivered, but nothing waited for it (ignored)",
            ])
        #expect(driver.published.isEmpty)
    }
}
