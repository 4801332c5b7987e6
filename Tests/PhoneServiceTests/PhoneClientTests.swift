import Foundation
import PhoneCore
import PhoneTestSupport
import Platform
import TestSupport
import Testing

@testable import PhoneService

/// The client shell with a fake board transport, hand-fired timers and a fake Wake source.
@Suite struct PhoneClientTests {
    @Test func aWakeFromTheSourceBecomesAFetchAndACard() throws {
        let harness = ClientHarness()
        try harness.start()
        #expect(harness.output.cards.last?.state == .standby)
        #expect(harness.output.cards.last?.link.wake == .connected)
        harness.board.start("chat_1")
        harness.wakeSource.wake(seq: 1)
        #expect(harness.output.wakes.map(\.sequence) == [1])
        #expect(harness.output.cards.last?.state == .running)
        #expect(harness.output.cards.last?.snapshot?.requestID == "chat_1")
        harness.settle()
        #expect(harness.output.alertNames == ["connected board-a1b2c3"])
        #expect(harness.output.shownBeforeSaved.isEmpty)
    }

    @Test func aWakeStormWhileAFetchIsInFlightGivesOneTrailingFetch() throws {
        let harness = ClientHarness()
        try harness.start()
        let before = harness.board.currentRequests
        harness.transport.hold()
        let threads = 4
        DispatchQueue.concurrentPerform(iterations: threads) { thread in
            for index in 0..<2_500 { harness.wakeSource.wake(seq: UInt64(index * threads + thread + 1)) }
        }
        #expect(harness.transport.heldCount == 1)
        harness.transport.releaseHeld()
        #expect(harness.board.currentRequests == before + 2)
        #expect(harness.runtime.perform { harness.client.session.isFetching } == false)
        #expect(harness.output.wakes.count == 10_000, "every Wake is still reported")
    }

    @Test func retriesRunOnTheTimerAndStaleTimersDoNothing() throws {
        let harness = ClientHarness()
        harness.board.mode = .unreachable("refused")
        try harness.start()
        #expect(harness.runtime.pendingTimers == [.milliseconds(250)])
        harness.board.mode = .normal
        harness.runtime.advance(to: .milliseconds(250))
        #expect(harness.output.cards.last?.state == .standby)
        #expect(harness.runtime.pendingTimers == [.milliseconds(60_250)])

        // A Wake fetches and re-arms the safety timer; the earlier one must not fetch when it fires.
        harness.runtime.advance(to: .seconds(10))
        harness.wakeSource.wake(seq: 1)
        let fetched = harness.board.currentRequests
        harness.runtime.advance(to: .milliseconds(60_250))
        #expect(harness.board.currentRequests == fetched, "the superseded timer is ignored")
        harness.runtime.advance(to: .seconds(70))
        #expect(harness.board.currentRequests == fetched + 1)
    }

    @Test func theAlertRecordIsPersistedSoARestartRepeatsNothing() throws {
        let fileSystem = InMemoryFileSystem()
        let board = FakeBoard()
        let first = ClientHarness(board: board, fileSystem: fileSystem)
        try first.start()
        board.start("chat_1")
        board.handoff()
        first.wakeSource.wake(seq: 1)
        board.end("completed")
        first.wakeSource.wake(seq: 2)
        first.settle()
        #expect(first.output.alertNames == ["connected board-a1b2c3", "handoff chat_1", "completed chat_1"])
        #expect(first.output.shownBeforeSaved.isEmpty, "each alert was shown after its record was written")

        let second = ClientHarness(board: board, fileSystem: fileSystem)
        try second.start()
        second.wakeSource.wake(seq: 3)
        second.settle()
        #expect(second.output.alerts.isEmpty)
        #expect(second.output.cards.last?.state == .completed)

        // Without the record (a deleted state directory), the first read is taken silently.
        let fresh = ClientHarness(board: board)
        try fresh.start()
        fresh.settle()
        #expect(fresh.output.alertNames == ["connected board-a1b2c3"])
    }

    /// Once means once: an alert is shown only after the record holding its key is written, not when its save is
    /// merely asked for. While the write waits (a slow fsync), the alert waits with it; the card does not.
    @Test func anAlertWaitsForItsRecordToBeWritten() throws {
        let harness = ClientHarness()
        try harness.start()
        harness.settle()
        harness.records.hold()
        harness.board.start("chat_1")
        harness.board.handoff()
        harness.wakeSource.wake(seq: 1)
        #expect(harness.output.cards.last?.state == .handoff, "the card is shown while the record is written")
        #expect(harness.records.awaitSave())
        #expect(harness.output.alertNames == ["connected board-a1b2c3"], "the handoff waits for its record")
        harness.records.release()
        harness.settle()
        #expect(harness.output.alertNames == ["connected board-a1b2c3", "handoff chat_1"])
        #expect(harness.output.shownBeforeSaved.isEmpty)
    }

    /// kill -9 between the record's save and the alert: the process dies while the record's write waits, so
    /// nothing was shown and nothing durable says it was; the restarted client shows the alert, once. (Shown
    /// before its record was durable, the alert would have been given twice.)
    @Test func aCrashBetweenTheRecordAndTheAlertRepeatsNothing() throws {
        let fileSystem = InMemoryFileSystem()
        let board = FakeBoard()
        let first = ClientHarness(board: board, fileSystem: fileSystem)
        try first.start()
        first.settle()
        first.records.hold()
        board.start("chat_1")
        board.handoff()
        first.wakeSource.wake(seq: 1)
        #expect(first.records.awaitSave())
        let shownBeforeTheKill = first.output.alertNames.filter { $0 == "handoff chat_1" }.count
        // The process dies here: none of its operations from now on reaches the disk, then the power comes back.
        fileSystem.inject(.stop, atOperation: fileSystem.operationCount)
        first.records.release()
        first.settle()
        fileSystem.crash()

        let second = ClientHarness(board: board, fileSystem: fileSystem)
        try second.start()
        second.wakeSource.wake(seq: 2)
        second.settle()
        let shownAfterTheRestart = second.output.alertNames.filter { $0 == "handoff chat_1" }.count
        #expect(shownBeforeTheKill == 0)
        #expect(shownBeforeTheKill + shownAfterTheRestart == 1, "the handoff is given once in all")
        #expect(second.output.shownBeforeSaved.isEmpty)
    }

    @Test func aRecordThatCannotBeSavedIsLoggedAndTheClientGoesOn() throws {
        let fileSystem = InMemoryFileSystem()
        let harness = ClientHarness(fileSystem: fileSystem)
        fileSystem.inject(.failOnce, atOperation: fileSystem.operationCount)
        try harness.start()
        harness.settle()
        #expect(harness.output.alertNames == ["connected board-a1b2c3"], "shown once its record's write failed")
        #expect(harness.logs.lines(at: .error).contains { $0.contains("could not save the alert record") })
    }

    @Test func jsonLinesAreOneEventPerLine() throws {
        var descriptors: [Int32] = [0, 0]
        #expect(pipe(&descriptors) == 0)
        let writer = OutputChannel(descriptor: descriptors[1])
        let lines = JSONLinesOutput(channel: writer, wallClock: { Date(timeIntervalSince1970: 60) })
        lines.emit(
            .card(Card(state: .standby, link: LinkState(usb: .unmonitored, wake: .connected))),
            at: Date(timeIntervalSince1970: 0))
        lines.deliver(Alert(transition: .connected, connectionID: "board-1"))
        lines.flush()
        close(descriptors[1])
        let data = FileHandle(fileDescriptor: descriptors[0], closeOnDealloc: true).readDataToEndOfFile()
        let text = String(decoding: data, as: UTF8.self)
        let objects = text.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
        #expect(text.hasSuffix("\n"))
        #expect(objects.count == 2)
        #expect(objects.map { $0["event"] as? String } == ["card", "alert"])
        #expect(objects.first?["at"] as? String == "1970-01-01T00:00:00.000Z")
        #expect(objects.last?["connection_id"] as? String == "board-1")
    }
}
