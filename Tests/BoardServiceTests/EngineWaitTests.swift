import BoardAPI
import FoundationEssentials
import Synchronization
import TestSupport
import Testing

@testable import BoardService

/// The agent's long-polls through the engine: held by the writer without blocking anyone, answered by the change
/// that decides them (the person's answer from the phone, the end), or by their timeout on the runtime's clock.
@Suite struct EngineWaitTests {
    /// Where a held request's answers go: every answer, in order.
    final class Answers: Sendable {
        private let received = Mutex<[HTTPResponse]>([])
        var all: [HTTPResponse] { received.withLock { $0 } }
        var respond: @Sendable (HTTPResponse) -> Void { { response in self.received.withLock { $0.append(response) } } }
    }

    static func request(_ target: String) -> HTTPRequest {
        let pieces = target.split(separator: "?", maxSplits: 1)
        let pairs = pieces.count < 2 ? [] : pieces[1].split(separator: "&")
        let query: [(name: String, value: String)] = pairs.map { pair in
            let kv = pair.split(separator: "=", maxSplits: 1)
            return (name: String(kv[0]), value: kv.count > 1 ? String(kv[1]) : "")
        }
        return HTTPRequest(method: "GET", path: String(pieces[0]), query: query)
    }

    @Test func anAnswerFromThePhoneAnswersTheHeldWaitAtOnce() throws {
        let board = try EngineFixture()
        board.engine.start()
        board.agent("POST", "/v1/tasks", #"{"task_title":"Pay","request_id":"chat_p"}"#)
        board.agent("PATCH", "/v1/tasks/chat_p", #"{"phase":"waiting_user","current_action":"request_user_input"}"#)
        let answers = Answers()
        board.engine.handleAgent(Self.request("/v1/tasks/chat_p/wait?for=answer&timeout=30"), respond: answers.respond)
        #expect(answers.all.isEmpty, "nothing to answer yet")
        #expect(board.engine.heldWaits == 1)
        board.agent("PATCH", "/v1/tasks/chat_p", #"{"current_step":"Still waiting"}"#)
        board.runtime.advance(by: .seconds(2))
        #expect(answers.all.isEmpty, "another change does not decide it")

        let pressed = EngineAnswerTests.answer(board, "chat_p", #"{"answer":"refuse","answer_id":"ans-1"}"#)
        #expect(pressed.status == 200)
        #expect(answers.all.count == 1, "answered by the change that recorded the answer, before the phone's 200")
        #expect(answers.all.first?.text.contains(#""outcome":"came""#) == true)
        #expect(answers.all.first?.text.contains(#""answer":"refuse""#) == true)
        #expect(board.engine.heldWaits == 0)
        board.runtime.advance(by: .seconds(60))
        #expect(answers.all.count == 1, "its timer was cancelled: answered once")
    }

    @Test func aWaitNobodyDecidesIsAnsweredAtItsTimeout() throws {
        let board = try EngineFixture()
        board.engine.start()
        board.agent("POST", "/v1/tasks", #"{"task_title":"Build","request_id":"chat_b","can_stop":true}"#)
        let answers = Answers()
        board.engine.handleAgent(Self.request("/v1/tasks/chat_b/wait?for=stop&timeout=5"), respond: answers.respond)
        board.runtime.advance(by: .milliseconds(4_999))
        #expect(answers.all.isEmpty)
        board.runtime.advance(by: .milliseconds(1))
        #expect(answers.all.count == 1)
        #expect(answers.all.first?.status == 200)
        #expect(answers.all.first?.text.contains(#""outcome":"timeout""#) == true)
        #expect(board.engine.heldWaits == 0)
    }

    @Test func theEndAnswersEveryWaitOnTheTask() throws {
        let board = try EngineFixture()
        board.engine.start()
        board.agent("POST", "/v1/tasks", #"{"task_title":"Build","request_id":"chat_e","can_stop":true}"#)
        let stop = Answers()
        let end = Answers()
        let events = Answers()
        let next = try #require(
            board.agent("GET", "/v1/events").text.split(separator: ",").first { $0.hasPrefix(#""next":"#) })
        board.engine.handleAgent(Self.request("/v1/tasks/chat_e/wait?for=stop&timeout=60"), respond: stop.respond)
        board.engine.handleAgent(Self.request("/v1/tasks/chat_e/wait?for=end&timeout=60"), respond: end.respond)
        board.engine.handleAgent(
            Self.request("/v1/events?since=\(next.dropFirst(7))&wait=60"), respond: events.respond)
        #expect(board.engine.heldWaits == 3)
        board.agent("POST", "/v1/tasks/chat_e/end", #"{"status":"failed","last_error":"disk full"}"#)
        #expect(stop.all.first?.text.contains(#""outcome":"ended""#) == true, "\(stop.all.map(\.text))")
        #expect(end.all.first?.text.contains(#""outcome":"came""#) == true)
        #expect(events.all.first?.text.contains(#""transition":"failed""#) == true)
        #expect(board.engine.heldWaits == 0)
    }

    @Test func whatIsDecidedAlreadyAndBadQueriesAreAnsweredWithoutHolding() throws {
        let board = try EngineFixture()
        board.engine.start()
        board.agent("POST", "/v1/tasks", #"{"task_title":"Done","request_id":"chat_d"}"#)
        board.agent("POST", "/v1/tasks/chat_d/end", #"{"status":"completed"}"#)
        let answers = Answers()
        board.engine.handleAgent(Self.request("/v1/tasks/chat_d/wait?for=end"), respond: answers.respond)
        board.engine.handleAgent(Self.request("/v1/tasks/chat_d/wait?for=stop&timeout=99"), respond: answers.respond)
        board.engine.handleAgent(Self.request("/v1/tasks/chat_x/wait?for=stop"), respond: answers.respond)
        #expect(answers.all.map(\.status) == [200, 400, 404])
        #expect(board.engine.heldWaits == 0)
        let sync = board.engine.handleAgent(Self.request("/v1/tasks/chat_d/wait?for=answer&timeout=30"))
        #expect(sync.text.contains(#""outcome":"ended""#), "the blocking entry answers a wait as if its timeout were 0")
    }
}
