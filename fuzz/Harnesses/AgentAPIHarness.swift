import BoardAPI
import FoundationEssentials
import LiveActivity
import PhoneCore
import WireFormat

/// The agent API on the board's Unix socket: requests in order against one board (start, update, end, list,
/// show), each as the server shell hands it to `AgentRouter`, whose bodies `TaskDraft`, `TaskPatch` and
/// `TaskEnd` decode and validate. The input is requests in `FuzzHTTPRequest`'s form, separated by `---` lines.
///
/// Beyond not crashing: every answer is well-formed (`ResponseChecks`); a body the route's decoder accepts
/// encodes and decodes to the same value; an answered snapshot is the store's, reads the same through the
/// phone's tolerant reader, and carries the store's ETag; after every change the store survives its state file
/// (encode, decode: equal) and its own invariants hold (the store checks them in builds with `DEBUG`).
package enum AgentAPIHarness: FuzzHarness {
    package static let name = "agent-api"

    static let facts = BoardFacts(
        version: "fuzz", instanceID: "fuzz-1", uptimeSeconds: 1, liveActivityEnabled: true,
        retention: .seconds(600), wake: WakeFacts(transport: "loopback"), bluetooth: BluetoothFacts(adapter: "hci0"),
        usb: USBLinkFacts(link: "unknown"))

    package static func run(_ input: [UInt8]) throws(InvariantViolation) -> FuzzVerdict {
        // A small store, so that eviction and the transition ring's wrap are within reach of a few requests.
        var state = BoardState(
            store: TaskStore(generation: "g1", capacity: 4, transitionCapacity: 8), epoch: 7, instanceID: "f022")
        var random = CountingGenerator()
        var now = Date(timeIntervalSince1970: 1_780_000_000)
        var verdict = FuzzVerdict.accepted
        let records = FuzzRecords.split(input)
        for (index, record) in records.enumerated() {
            // A record the server refuses before routing (HTTPRequestParser) is not routed.
            guard let request = FuzzHTTPRequest.parse(record, overIP: false) else {
                verdict = .rejected
                continue
            }
            now += 1
            let result = AgentRouter().handle(request, state: &state, facts: facts, now: now, using: &random)
            if result.response.status >= 400 { verdict = .rejected }
            // The checks of this request (and the board's state they read) depend on the input's bytes up to its
            // end alone, and on whether a separator follows (else it runs to the input's end): the harness starts
            // from the same state, counter and clock for every input.
            let upToHere = [index == records.count - 1 ? 1 : 0] + input[..<record.endIndex]
            try requestChecks.verdict(for: upToHere) { () throws(InvariantViolation) in
                try check(request, result, state: state)
                return true
            }
        }
        return verdict
    }

    /// Whether the checks of the request that ends a prefix of an input passed, by prefix; most inputs are their
    /// parents with one change, and the requests before it need no second check (the board still answers them).
    static let requestChecks = VerdictCache<Bool>(slots: 8192, bytesEach: 4097)

    private static func check(
        _ request: HTTPRequest, _ result: RouteResult, state: BoardState
    ) throws(InvariantViolation) {
        try checkDecoder(for: request)
        let body = try ResponseChecks.check(result.response, to: request)
        if result.change != nil {
            try require(
                result.response.status == 200 || result.response.status == 201,
                "\(request.method) \(request.path): a change answered \(result.response.status)")
        }
        if request.path.hasPrefix("/v1/tasks"), body?.hasLiveActivity == true {
            try checkSnapshot(result.response, state: state, request: request)
        }
        if result.change != nil { try checkStateFile(state.store) }
    }

    /// What the route's decoder accepts, it writes back (aidenctl builds bodies with the same `Encodable`) and
    /// reads again. The verdict depends on the body's bytes alone, so it is kept for bodies that come back.
    private static func checkDecoder(for request: HTTPRequest) throws(InvariantViolation) {
        let body = request.body
        switch (request.method, request.path.hasSuffix("/end")) {
        case ("POST", false):
            try drafts.verdict(for: body) { () throws(InvariantViolation) in
                guard let draft = try? TaskDraft.decode(from: body) else { return false }
                try require(
                    (try? TaskDraft.decode(from: encoded(draft))) == draft, "TaskDraft \(draft) does not read back")
                return true
            }
        case ("PATCH", _):
            try patches.verdict(for: body) { () throws(InvariantViolation) in
                guard let patch = try? TaskPatch.decode(from: body) else { return false }
                try require(
                    (try? TaskPatch.decode(from: encoded(patch))) == patch, "TaskPatch \(patch) does not read back")
                return true
            }
        case ("POST", true):
            try ends.verdict(for: body) { () throws(InvariantViolation) in
                guard let end = try? TaskEnd.decode(from: body) else { return false }
                try require((try? TaskEnd.decode(from: encoded(end))) == end, "TaskEnd \(end) does not read back")
                return true
            }
        default:
            return
        }
    }

    /// Per decoder: whether it accepted the body (and so wrote it back and read it again).
    static let drafts = VerdictCache<Bool>(slots: 1024, bytesEach: 2048)
    static let patches = VerdictCache<Bool>(slots: 1024, bytesEach: 2048)
    static let ends = VerdictCache<Bool>(slots: 1024, bytesEach: 2048)

    private static func checkSnapshot(
        _ response: HTTPResponse, state: BoardState, request: HTTPRequest
    ) throws(InvariantViolation) {
        func asked() -> String { "\(request.method) \(request.path)" }
        guard let envelope = try? JSONDecoder().decode(SnapshotEnvelope.self, from: Data(response.body)) else {
            throw InvariantViolation("\(asked()): live_activity is not a snapshot: \(text(response.body))")
        }
        let snapshot = envelope.liveActivity
        try require(
            state.store.task(id: snapshot.requestID) == snapshot,
            "\(asked()): the answer's snapshot is not the store's: \(text(response.body))")
        try require(
            response.header("ETag") == state.storeETag,
            "\(asked()): ETag \(String(describing: response.header("ETag")))")
        // The phone's reading of the body, and the snapshot it is compared with, depend on the body alone.
        try phoneReadings.verdict(for: response.body) { () throws(InvariantViolation) in
            guard case let .snapshot(view, _) = try? BoardAnswer.current(from: response.body) else {
                throw InvariantViolation("\(asked()): the phone cannot read the snapshot: \(text(response.body))")
            }
            try require(
                view.requestID == snapshot.requestID && view.taskTitle == snapshot.taskTitle
                    && view.currentStep == snapshot.currentStep && view.lastError == snapshot.lastError
                    && view.progress == snapshot.progress && view.revision == snapshot.revision
                    && view.status == OpenEnum(snapshot.status) && view.phase == OpenEnum(snapshot.phase),
                "\(asked()): the phone reads \(view) from \(snapshot)")
            return true
        }
    }

    static let phoneReadings = VerdictCache<Bool>(slots: 1024, bytesEach: 4096)

    /// The board saves the store after changes and refuses a state file that does not decode at start-up.
    private static func checkStateFile(_ store: TaskStore) throws(InvariantViolation) {
        let data: Data
        do {
            data = try LiveActivityJSON.makeEncoder().encode(store)
        } catch {
            throw InvariantViolation("the store does not encode: \(error)")
        }
        do {
            let decoded = try JSONDecoder().decode(TaskStore.self, from: data)
            try require(decoded == store, "the store changed through its state file: \(text(Array(data)))")
        } catch let violation as InvariantViolation {
            throw violation
        } catch {
            throw InvariantViolation("the state file does not read back: \(error)\n\(text(Array(data)))")
        }
    }

    private static func encoded(_ value: some Encodable) -> [UInt8] {
        (try? JSONEncoder().encode(value)).map(Array.init) ?? []
    }

    private static func text(_ bytes: [UInt8]) -> String { String(decoding: bytes, as: UTF8.self) }

    private struct SnapshotEnvelope: Decodable {
        var liveActivity: TaskSnapshot

        enum CodingKeys: String, CodingKey {
            case liveActivity = "live_activity"
        }
    }
}

/// Request ids the store generates, numbered so that every run of an input gives the same ones.
struct CountingGenerator: RandomNumberGenerator {
    var value: UInt64 = 0

    mutating func next() -> UInt64 {
        value &+= 1
        return value
    }
}
