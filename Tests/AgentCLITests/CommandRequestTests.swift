import FoundationEssentials
import Testing
import WireFormat

@testable import AgentCLI

@Suite("Command → agent HTTP request")
struct CommandRequestTests {
    private func body(_ request: AgentRequest?) throws -> JSONValue {
        let request = try #require(request)
        return try JSONDecoder().decode(JSONValue.self, from: Data(request.body))
    }

    @Test func startPostsTheSnapshotFieldsWithAnIdempotencyKey() throws {
        let minimal = Command.taskStart(.init(title: "Open Settings")).request(idempotencyKey: "k-1")
        #expect(minimal?.method == "POST")
        #expect(minimal?.path == "/v1/tasks")
        #expect(minimal?.header("Idempotency-Key") == "k-1")
        #expect(minimal?.header("content-type") == "application/json")
        #expect(try body(minimal) == .object(["task_title": .string("Open Settings")]))

        let full = Command.taskStart(
            .init(
                title: "T", requestID: "chat_x", phoneID: "p1", step: "S",
                phase: .waitingApp, progress: 0.25))
        #expect(
            try body(full.request(idempotencyKey: "k"))
                == .object([
                    "task_title": .string("T"), "request_id": .string("chat_x"), "phone_id": .string("p1"),
                    "current_step": .string("S"), "phase": .string("waiting_app"), "progress": .number("0.25"),
                ]))
    }

    @Test func updatePatchesOnlyTheGivenFieldsUnderTheirContractNames() throws {
        let update = Command.taskUpdate(
            .init(
                requestID: "chat_1", step: "S", phase: .acting, action: "tap", target: "OK", app: "Settings",
                tool: "screenshot", progress: 1, status: .needsApp, expectedRevision: 7))
        let request = try #require(update.request(idempotencyKey: "k"))
        #expect(request.method == "PATCH")
        #expect(request.path == "/v1/tasks/chat_1")
        #expect(request.header("Idempotency-Key") == nil)
        #expect(
            try body(request)
                == .object([
                    "current_step": .string("S"), "phase": .string("acting"), "current_action": .string("tap"),
                    "current_target": .string("OK"), "current_app": .string("Settings"),
                    "last_tool_name": .string("screenshot"), "progress": .number("1"), "status": .string("needs_app"),
                    "expected_revision": .number("7"),
                ]))
        let clearing = Command.taskUpdate(.init(requestID: "chat_1", target: "")).request(idempotencyKey: "k")
        #expect(try body(clearing) == .object(["current_target": .string("")]))
    }

    @Test func endPostsTheTerminalStatusAndError() throws {
        let plain = Command.taskEnd(.init(requestID: "chat_1", status: .completed)).request(idempotencyKey: "k")
        #expect(plain?.method == "POST")
        #expect(plain?.path == "/v1/tasks/chat_1/end")
        #expect(try body(plain) == .object(["status": .string("completed"), "last_error": .string("")]))
        let failed = Command.taskEnd(.init(requestID: "chat_1", status: .failed, error: "locked"))
        #expect(
            try body(failed.request(idempotencyKey: "k"))
                == .object(["status": .string("failed"), "last_error": .string("locked")]))
    }

    @Test func readsAreBodylessGets() {
        let cases: [(Command, String)] = [
            (.taskList, "/v1/tasks"), (.taskShow(requestID: "chat_1"), "/v1/tasks/chat_1"), (.status, "/v1/status"),
        ]
        for (command, path) in cases {
            let request = command.request(idempotencyKey: "k")
            #expect(
                request
                    == AgentRequest(
                        method: "GET", path: path,
                        headers: [AgentRequest.Header("Accept", "application/json")]))
        }
        #expect(Command.help(.main).request(idempotencyKey: "k") == nil)
    }

    @Test func requestIDsArePercentEncodedIntoOnePathSegment() {
        #expect(
            Command.taskShow(requestID: "a/b c?d%é").request(idempotencyKey: "k")?.path
                == "/v1/tasks/a%2Fb%20c%3Fd%25%C3%A9")
        #expect(
            Command.taskEnd(.init(requestID: "../x", status: .canceled)).request(idempotencyKey: "k")?.path
                == "/v1/tasks/..%2Fx/end")
    }

    @Test func bodiesAreByteStable() throws {
        let request = try #require(
            Command.taskStart(.init(title: "a/b", phase: .planning, progress: 0.5))
                .request(idempotencyKey: "k"))
        #expect(
            String(decoding: request.body, as: UTF8.self)
                == #"{"phase":"planning","progress":0.5,"task_title":"a/b"}"#)
    }

    @Test func onlyRepeatableRequestsAreRetried() {
        #expect(Command.taskStart(.init(title: "T")).retriesAfterConnectionLoss)
        #expect(Command.taskList.retriesAfterConnectionLoss)
        #expect(Command.status.retriesAfterConnectionLoss)
        #expect(!Command.taskUpdate(.init(requestID: "r", step: "s")).retriesAfterConnectionLoss)
        #expect(!Command.taskEnd(.init(requestID: "r", status: .completed)).retriesAfterConnectionLoss)
    }

    @Test func idempotencyKeysAreRandomHex() {
        var fixed = FixedGenerator(values: [0x0123_4567_89AB_CDEF, 0xF])
        #expect(IdempotencyKey.make(using: &fixed) == "aidenctl-0123456789abcdef000000000000000f")
        var system = SystemRandomNumberGenerator()
        let first = IdempotencyKey.make(using: &system)
        let second = IdempotencyKey.make(using: &system)
        #expect(first != second)
        #expect(first.count == "aidenctl-".count + 32)
    }
}

struct FixedGenerator: RandomNumberGenerator {
    var values: [UInt64]

    mutating func next() -> UInt64 {
        values.isEmpty ? 0 : values.removeFirst()
    }
}
