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

    @Test func startSendsEveryFieldTheAPIAccepts() throws {
        let start = Command.taskStart(
            .init(
                title: "T", requestID: "r", phoneID: "p", step: "S", phase: .acting, progress: 0.5, status: .needsApp,
                action: "tap", target: "OK", app: "Settings", tool: "screenshot", error: "e", showsProgress: false,
                canStop: true, requiresApp: true, staleAfterSeconds: 60, abandonAfterSeconds: 600))
        #expect(
            try body(start.request(idempotencyKey: "k"))
                == .object([
                    "task_title": .string("T"), "request_id": .string("r"), "phone_id": .string("p"),
                    "current_step": .string("S"), "phase": .string("acting"), "progress": .number("0.5"),
                    "status": .string("needs_app"), "current_action": .string("tap"), "current_target": .string("OK"),
                    "current_app": .string("Settings"), "last_tool_name": .string("screenshot"),
                    "last_error": .string("e"), "shows_progress": .bool(false), "can_stop": .bool(true),
                    "requires_app": .bool(true), "stale_after_seconds": .number("60"),
                    "abandon_after_seconds": .number("600"),
                ]))
    }

    /// `--tool-status` and `--locale` on a start and an update, parsed and sent under the snapshot's names.
    @Test func theToolLineAndTheLocaleAreParsedAndSent() throws {
        let start = try CommandLineParser.parse([
            "task", "start", "--title", "T", "--tool-status", "Taking a screenshot", "--locale", "de-CH",
        ]).command
        let sent = try body(start.request(idempotencyKey: "k"))
        #expect(
            sent
                == .object([
                    "task_title": .string("T"), "tool_status": .string("Taking a screenshot"),
                    "locale": .string("de-CH"),
                ]))
        let update = try CommandLineParser.parse(["task", "update", "r", "--tool-status", ""]).command
        let request = try #require(update.request(idempotencyKey: "k"))
        #expect(request.method == "PATCH")
        #expect(try body(request) == .object(["tool_status": .string("")]), "an empty line clears it")
    }

    /// The key a start is sent with: given > derived from the request id > fresh.
    @Test func aStartWithARequestIDDerivesItsKeySoRunningItTwiceIsOneTask() {
        let fresh = Command.taskStart(.init(title: "T")).request(idempotencyKey: "fresh")
        #expect(fresh?.header("Idempotency-Key") == "fresh")
        let derived = Command.taskStart(.init(title: "T", requestID: "build-42")).request(idempotencyKey: "fresh")
        #expect(derived?.header("Idempotency-Key") == "start:build-42")
        let given = Command.taskStart(.init(title: "T", requestID: "build-42", idempotencyKey: "mine"))
        #expect(given.request(idempotencyKey: "fresh")?.header("Idempotency-Key") == "mine")
        let run = Command.taskRun(.init(start: .init(title: "T", requestID: "build-42"), command: ["make"]))
        #expect(run.request(idempotencyKey: "fresh") == derived, "task run starts exactly like task start")
    }

    @Test func updatesAndEndsUseTheKeyGivenOrAFreshOne() throws {
        let update = Command.taskUpdate(.init(requestID: "r", step: "s", idempotencyKey: "u-1"))
        #expect(update.request(idempotencyKey: "fresh")?.header("Idempotency-Key") == "u-1")
        let end = Command.taskEnd(.init(requestID: "r", status: .failed, expectedRevision: 9))
        let request = try #require(end.request(idempotencyKey: "fresh"))
        #expect(request.header("Idempotency-Key") == "fresh")
        #expect(
            try body(request)
                == .object(["status": .string("failed"), "last_error": .string(""), "expected_revision": .number("9")]))
        let fields = Command.taskUpdate(
            .init(
                requestID: "r", title: "New", phoneID: "", error: "oops", showsProgress: true, canStop: false,
                requiresApp: false, staleAfterSeconds: 900, abandonAfterSeconds: 7200))
        #expect(
            try body(fields.request(idempotencyKey: "k"))
                == .object([
                    "task_title": .string("New"), "phone_id": .string(""), "last_error": .string("oops"),
                    "shows_progress": .bool(true), "can_stop": .bool(false), "requires_app": .bool(false),
                    "stale_after_seconds": .number("900"), "abandon_after_seconds": .number("7200"),
                ]))
    }

    @Test func eventsReadTheRingFromTheCursor() {
        let request = Command.events(.init(since: 12, follow: true)).request(idempotencyKey: "k")
        #expect(
            request
                == AgentRequest(
                    method: "GET", path: "/v1/events?since=12",
                    headers: [AgentRequest.Header("Accept", "application/json")]))
        #expect(Command.version.request(idempotencyKey: "k") == nil)
    }

    @Test func updatePatchesOnlyTheGivenFieldsUnderTheirContractNames() throws {
        let update = Command.taskUpdate(
            .init(
                requestID: "chat_1", step: "S", phase: .acting, action: "tap", target: "OK", app: "Settings",
                tool: "screenshot", progress: 1, status: .needsApp, expectedRevision: 7))
        let request = try #require(update.request(idempotencyKey: "k"))
        #expect(request.method == "PATCH")
        #expect(request.path == "/v1/tasks/chat_1")
        #expect(request.header("Idempotency-Key") == "k", "every write carries a key, so a retry is safe")
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

    @Test func endSendsTheDismissalOnlyWhenOneIsGiven() throws {
        for (seconds, expected) in [(UInt64(0), JSONValue(UInt64(0))), (30, JSONValue(UInt64(30)))] {
            let end = Command.taskEnd(.init(requestID: "chat_1", status: .completed, dismissAfterSeconds: seconds))
            #expect(
                try body(end.request(idempotencyKey: "k"))
                    == .object([
                        "status": .string("completed"), "last_error": .string(""), "dismiss_after_seconds": expected,
                    ]))
        }
    }

    /// News without a change: no body to send and no key, since sending it twice is the same as once.
    @Test func aHeartbeatIsABodylessPostWithoutAKey() {
        #expect(
            Command.taskHeartbeat(requestID: "a/b").request(idempotencyKey: "k")
                == AgentRequest(
                    method: "POST", path: "/v1/tasks/a%2Fb/heartbeat",
                    headers: [AgentRequest.Header("Accept", "application/json")]))
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

    /// Reads, heartbeats, and writes, whose idempotency key makes a repeat harmless; help and the version
    /// send nothing.
    @Test func everyRequestIsRepeatableAfterALostConnection() {
        #expect(Command.taskStart(.init(title: "T")).retriesAfterConnectionLoss)
        #expect(Command.taskList.retriesAfterConnectionLoss)
        #expect(Command.status.retriesAfterConnectionLoss)
        #expect(Command.taskUpdate(.init(requestID: "r", step: "s")).retriesAfterConnectionLoss)
        #expect(Command.taskEnd(.init(requestID: "r", status: .completed)).retriesAfterConnectionLoss)
        #expect(Command.events(.init()).retriesAfterConnectionLoss)
        #expect(Command.taskHeartbeat(requestID: "r").retriesAfterConnectionLoss)
        #expect(!Command.help(.main).retriesAfterConnectionLoss)
        #expect(!Command.version.retriesAfterConnectionLoss)
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
