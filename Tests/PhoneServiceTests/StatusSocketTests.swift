import BoardAPI
import PhoneCore
import Platform
import Synchronization
import TestSupport
import Testing
import WireFormat

@testable import PhoneService

/// The bar status socket's answers without a socket (`StatusSocket.handle`): the line now with its tag, a held
/// request answered by the next change or by its time, the oldest giving way, and every bad request named.
@Suite struct StatusSocketTests {
    static let running = Card(
        state: .running,
        snapshot: SnapshotView(requestID: "chat_1", status: .known(.running), taskTitle: "Deploy", revision: 3),
        link: LinkState(usb: .unmonitored, wake: .connected))
    static let standby = Card(state: .standby, link: LinkState(usb: .unmonitored, wake: .connected))

    static func get(
        _ query: [(String, String)], tag: String? = nil, method: String = "GET", path: String = "/v1/status"
    )
        -> HTTPRequest
    {
        HTTPRequest(
            method: method, path: path, query: query.map { (name: $0.0, value: $0.1) },
            headers: tag.map { ["If-None-Match": $0] } ?? [:])
    }

    /// The response now; a held request fails the test.
    static func now(_ reply: HTTPReply) -> HTTPResponse? {
        if case let .now(response) = reply { return response }
        return nil
    }

    /// What one held request was answered.
    final class Answers: Sendable {
        private let list = Mutex<[HTTPResponse]>([])
        func append(_ response: HTTPResponse) { list.withLock { $0.append(response) } }
        var all: [HTTPResponse] { list.withLock { $0 } }
    }

    /// Starts a held request and collects what it is answered.
    static func held(_ reply: HTTPReply) -> Answers {
        let answers = Answers()
        if case let .later(start) = reply {
            start { response in answers.append(response) }
        }
        return answers
    }

    static func text(_ response: HTTPResponse?) -> String { String(decoding: response?.body ?? [], as: UTF8.self) }

    @Test func theLineNowThenHeldUntilItChanges() throws {
        let runtime = ManualRuntime()
        let socket = StatusSocket(runtime: runtime, logger: Logger(component: "test", entries: { _ in }))
        socket.show([], current: Self.standby, alerts: [])
        let first = try #require(Self.now(socket.handle(Self.get([]))))
        #expect(first.status == 200)
        #expect(Self.text(first) == "Connected to the board\n")
        let tag = try #require(first.header("ETag"))
        // The same line again is no change: no new tag.
        socket.show([], current: Self.standby, alerts: [])
        #expect(Self.now(socket.handle(Self.get([("wait", "0")], tag: tag)))?.status == 304)

        let waiting = Self.held(socket.handle(Self.get([("format", "json"), ("wait", "30")], tag: tag)))
        #expect(runtime.pendingTimers.count == 1, "one timer, for the held request")
        #expect(waiting.all.isEmpty)
        socket.show([Self.running], current: Self.running, alerts: [])
        let answered = waiting.all
        #expect(answered.count == 1)
        #expect(answered.first?.status == 200)
        #expect(Self.text(answered.first) == #"{"text":"Deploy","tooltip":"Deploy: running","class":"running"}"# + "\n")
        #expect(answered.first?.header("ETag") != tag)
        #expect(runtime.pendingTimers.isEmpty, "its timer went with it")
    }

    /// `GET /v1/task`: the task the line is about at the revision its card shows, and none (204) while the line is
    /// about no task.
    @Test func theTaskTheLineIsAboutAtItsRevision() throws {
        let socket = StatusSocket(runtime: ManualRuntime(), logger: Logger(component: "test", entries: { _ in }))
        socket.show([], current: Self.standby, alerts: [])
        let none = try #require(Self.now(socket.handle(Self.get([], path: StatusSocket.taskPath))))
        #expect(none.status == 204)
        #expect(none.body.isEmpty)
        socket.show([Self.running], current: Self.running, alerts: [])
        let shown = try #require(Self.now(socket.handle(Self.get([], path: StatusSocket.taskPath))))
        #expect(shown.status == 200)
        #expect(shown.header("Content-Type") == "application/json")
        #expect(Self.text(shown) == #"{"request_id":"chat_1","revision":3,"title":"Deploy"}"# + "\n")
    }

    @Test func aHeldRequestIsAnsweredUnchangedWhenItsTimeIsUp() throws {
        let runtime = ManualRuntime()
        let socket = StatusSocket(runtime: runtime, logger: Logger(component: "test", entries: { _ in }))
        let tag = try #require(Self.now(socket.handle(Self.get([])))?.header("ETag"))
        let waiting = Self.held(socket.handle(Self.get([("wait", "10")], tag: tag)))
        runtime.advance(by: .seconds(9))
        #expect(waiting.all.isEmpty)
        runtime.advance(by: .seconds(1))
        #expect(waiting.all.map(\.status) == [304])
        // A stale tag is answered at once, however long it would wait.
        #expect(Self.now(socket.handle(Self.get([("wait", "60")], tag: "\"old-1\"")))?.status == 200)
    }

    @Test func theOldestHeldRequestGivesWay() throws {
        let runtime = ManualRuntime()
        let socket = StatusSocket(runtime: runtime, logger: Logger(component: "test", entries: { _ in }))
        let tag = try #require(Self.now(socket.handle(Self.get([])))?.header("ETag"))
        let all = (0...StatusSocket.mostWaiting).map { _ in
            Self.held(socket.handle(Self.get([("wait", "60")], tag: tag)))
        }
        #expect(all[0].all.map(\.status) == [304])
        #expect(all.dropFirst().allSatisfy { $0.all.isEmpty })
        #expect(runtime.pendingTimers.count == StatusSocket.mostWaiting)
    }

    /// `aiden-phone stop|done|refuse|dismiss` says the board recorded its answer: the client is told, once per request.
    @Test func anAnswerRecordedElsewhereIsPassedOn() throws {
        let socket = StatusSocket(runtime: ManualRuntime(), logger: Logger(component: "test", entries: { _ in }))
        let told = Mutex(0)
        #expect(Self.now(socket.handle(Self.get([], method: "POST", path: "/v1/answered")))?.status == 204)
        socket.onAnswered { told.withLock { $0 += 1 } }
        #expect(Self.now(socket.handle(Self.get([], method: "POST", path: "/v1/answered")))?.status == 204)
        #expect(Self.now(socket.handle(Self.get([], method: "GET", path: "/v1/answered")))?.status == 405)
        #expect(told.withLock { $0 } == 1)
    }

    @Test(arguments: [
        (get([("format", "xml")]), 400, "format 'xml' must be text or json\n"),
        (get([("wait", "61")]), 400, "wait '61' must be 0 to 60 seconds\n"),
        (get([("wait", "-1")]), 400, "wait '-1' must be 0 to 60 seconds\n"),
        (get([("wait", "+5")]), 400, "wait '+5' must be 0 to 60 seconds\n"),
        (get([], method: "POST"), 405, "POST is not allowed on /v1/status\n"),
        (get([], path: "/status"), 404, "no such path: ask GET /v1/status or GET /v1/task, or POST /v1/answered\n"),
        (get([], method: "DELETE", path: "/v1/task"), 405, "DELETE is not allowed on /v1/task\n"),
        (get([], path: "/v1/answered"), 405, "GET is not allowed on /v1/answered\n"),
    ])
    func everyBadRequestIsNamed(request: HTTPRequest, status: Int, words: String) throws {
        let socket = StatusSocket(runtime: ManualRuntime(), logger: Logger(component: "test", entries: { _ in }))
        let response = try #require(Self.now(socket.handle(request)))
        #expect(response.status == status)
        #expect(Self.text(response) == words)
    }
}
