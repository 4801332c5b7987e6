import Configuration
import Foundation
import PhoneCore
import PhoneTestSupport
import Platform
import Retry
import TestSupport
import Testing

@testable import PhoneService

/// The phone's client with its real HTTP transport against a board on loopback that serves only the Aiden
/// profile (`AidenProfileBoardServer`: `current` and `status?request_id=`, every other path `404`), its Wakes fed
/// through the fake Wake source the other client tests use. The clock is the manual runtime's: it moves only by
/// the table, so "on the card within 2 s" is measured on it; the waits below bound real HTTP round trips only.
@Suite struct AidenProfileBoardTests {
    struct Phone {
        let server: AidenProfileBoardServer
        let runtime = ManualRuntime(wallOrigin: Date(timeIntervalSince1970: 1_781_247_600))
        let output = RecordingOutput()
        let wakeSource = FakeWakeSource()
        let client: PhoneClient

        var board: AidenProfileBoard { server.board }

        init() throws {
            server = try AidenProfileBoardServer()
            var board = PhoneConfiguration.defaults.board
            board.url = try BoardURL(server.url)
            board.interface = nil
            let (logger, _) = Logger.capturing()
            client = PhoneClient(
                session: PhoneSession(
                    settings: .init(
                        phoneID: "p1", scheduler: .init(backoff: Backoff(base: .seconds(1), cap: .seconds(8))))),
                transport: HTTPBoardTransport(board: board), runtime: runtime, output: output, notifiers: [output],
                saveRecord: { _ throws(AtomicWriteError) in }, logger: logger)
            try wakeSource.start(into: client)
            client.submit(.started)
        }

        func wake(_ bytes: [UInt8]) { wakeSource.inject(.value(bytes, fullLength: bytes.count)) }

        /// Waits (bounded, real time: the HTTP round trips) until the last card satisfies `condition`.
        func shows(_ condition: (Card) -> Bool) -> Bool {
            let deadline = Date().addingTimeInterval(10)
            while Date() < deadline {
                if let card = output.cards.last, condition(card), !runtime.perform({ client.session.isFetching }) {
                    return true
                }
                usleep(2_000)
            }
            return false
        }
    }

    @Test func everyChangeAndEveryRestartsFirstChangeReachesTheCardWithinTwoSeconds() throws {
        let phone = try Phone()
        #expect(phone.shows { $0.state == .standby })
        let board = phone.board
        // (ms on the phone's clock, the board's change, the step the card must show, the state)
        let rows: [(Int, () -> [UInt8]?, String, CardState)] = [
            (800, { board.start("a1", title: "Open Settings") }, "", .running),
            (
                1_600, { board.update("a1", ["current_step": "Reading", "tool_status": "Taking a screenshot"]) },
                "Reading", .running
            ),
            (
                2_400, { board.update("a1", ["current_step": "Tapping", "tool_status": "Tapping OK"]) }, "Tapping",
                .running
            ),
            (
                2_600,
                {
                    board.restart(); return nil
                }, "Tapping", .running
            ),
            (3_400, { board.update("a1", ["current_step": "After restart"]) }, "After restart", .running),
            (
                3_600,
                {
                    board.restart(); return nil
                }, "After restart", .running
            ),
            (4_400, { board.update("a1", ["current_step": "Third life"]) }, "Third life", .running),
            (5_200, { board.end("a1") }, "Third life", .completed),
        ]
        for (index, (ms, act, step, state)) in rows.enumerated() {
            phone.runtime.advance(to: .milliseconds(ms))
            guard let bytes = act() else { continue }
            phone.wake(bytes)
            // No timer fires between the Wake and the check: the clock stands at the Wake's instant.
            #expect(
                phone.shows { $0.state == state && ($0.snapshot?.currentStep ?? "") == step },
                "row \(index): \(String(describing: phone.output.cards.last))")
            #expect(phone.runtime.monotonicNow() == .milliseconds(ms))
        }
        let final = try #require(phone.output.cards.last?.snapshot)
        #expect(final.canStop == false && final.showsProgress == false && final.progress == 1)
        #expect(phone.output.events.allSatisfy { if case .error = $0 { false } else { true } }, "no board problem")
        #expect(phone.runtime.pendingTimers == [.milliseconds(5_200) + .seconds(60)], "the safety fetch, no retry")
        #expect(phone.board.paths.filter { $0 == "/api/live-activity/events" }.count == 1)
        let toolLines = phone.output.cards.compactMap(\.snapshot?.toolStatus)
        #expect(toolLines.contains("Taking a screenshot") && toolLines.contains("Tapping OK"))
    }
}
