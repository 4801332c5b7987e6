import BoardAPI
import FoundationEssentials
import LiveActivity
import NetworkAddress
import PhoneCore
import WireFormat

/// The board's HTTP side on the USB link: requests as the server shell hands them to `PhoneRouter`, so the
/// access policy (peer, `Host` header, the pairing rules), the query rules (`phone_id`, `request_id`, `since`,
/// `generation`), the app-state body and the person's answer body (`/api/live-activity/tasks/{id}/answer`) run
/// on them, against a board holding tasks for two phones. The input is requests in `FuzzHTTPRequest`'s form,
/// separated by `---` lines.
///
/// Beyond not crashing: every answer is well-formed (`ResponseChecks`) and a 403 exactly when the policy denied;
/// a `Host` rule that ignores ASCII case and names IP literals canonically; a phone never gets another phone's
/// task; the phone's own parsers read every answer the board gives to its reads; what `admit` decides before the
/// body is what the whole request gets; and an accepted answer asks the shell to record exactly it, for the task
/// its path names, which the phone that sent it may see.
package enum PhoneAPIHarness: FuzzHarness {
    package static let name = "phone-api"

    static let policy = AccessPolicy(
        allowedSubnets: [(try? Subnet("192.168.42.0/24"))].compactMap(\.self), listenAddresses: [FuzzHTTPRequest.board])
    static let router = PhoneRouter(policy: policy, liveActivityEnabled: true, retention: .seconds(600))
    static let now = Date(timeIntervalSince1970: 1_780_000_100)
    static let facts = BoardFacts(
        version: "fuzz", instanceID: "fuzz-1", uptimeSeconds: 1, liveActivityEnabled: true,
        retention: .seconds(600), wake: WakeFacts(transport: "bluez"),
        bluetooth: BluetoothFacts(
            adapter: "hci0", adapterPresent: true, powered: true, bluezRunning: true, address: "00:AA:01:00:00:23"),
        usb: USBLinkFacts(link: "up"),
        boardAddresses: [FuzzHTTPRequest.board])
    /// A running, stoppable task for phone p1, a handoff for every phone, an ended task for p2.
    static let board: PublishedBoard = {
        var store = TaskStore(generation: "g1")
        var random = CountingGenerator()
        let start = Date(timeIntervalSince1970: 1_780_000_000)
        _ = try? store.start(
            TaskDraft(taskTitle: "Open Settings", requestID: "chat_p1", phoneID: "p1", progress: 0.5, canStop: true),
            idempotencyKey: nil, now: start, using: &random)
        _ = try? store.start(
            TaskDraft(
                taskTitle: "Join Wi-Fi", requestID: "chat_any", phase: .waitingUser, currentStep: "Enter the password",
                currentAction: "request_user_input"),
            idempotencyKey: nil, now: start + 1, using: &random)
        _ = try? store.start(
            TaskDraft(taskTitle: "Pay", requestID: "chat_p2", phoneID: "p2"), idempotencyKey: nil, now: start + 2,
            using: &random)
        _ = try? store.end(id: "chat_p2", TaskEnd(status: .failed, lastError: "Card declined"), now: start + 3)
        var state = BoardState(store: store, epoch: 7, instanceID: "f022")
        return state.published(now: PhoneAPIHarness.now, retention: .seconds(600))
    }()

    package static func run(_ input: [UInt8]) throws(InvariantViolation) -> FuzzVerdict {
        var verdict = FuzzVerdict.accepted
        for record in FuzzRecords.split(input) {
            // A record the server refuses before routing (HTTPRequestParser) is not routed.
            guard let request = FuzzHTTPRequest.parse(record, overIP: true) else {
                verdict = .rejected
                continue
            }
            let result = router.handle(request, board: board, facts: facts, now: now)
            if result.response.status >= 400 { verdict = .rejected }
            // The board, its facts and the clock are the same for every request, so the checks of a request depend
            // on its bytes alone: a request checked before (libFuzzer's inputs are mostly their parents with one
            // change) passes them again. The board still answers every request.
            try requestChecks.verdict(for: Array(record)) { () throws(InvariantViolation) in
                try check(request, result)
                return true
            }
        }
        return verdict
    }

    static let requestChecks = VerdictCache<Bool>(slots: 8192, bytesEach: 4096)

    private static func check(_ request: HTTPRequest, _ result: RouteResult) throws(InvariantViolation) {
        try ResponseChecks.check(result.response, to: request)
        try require(
            (result.denial != nil) == (result.response.status == 403),
            "\(request.method) \(request.path): \(result.response.status), denial: \(result.denial as Any)")
        if let host = request.header("host") { try checkHostRule(host, request: request) }
        if let admitted = router.admit(request, boardAddresses: { [FuzzHTTPRequest.board] }) {
            try require(
                admitted.response.status == result.response.status,
                "\(request.method) \(request.path): admitted as \(admitted.response.status), "
                    + "answered \(result.response.status)")
        }
        try checkAnswer(request, result)
        if result.response.status == 200 && request.method == "GET" {
            try checkPhoneReads(request, result.response)
        }
    }

    private static func checkHostRule(_ host: String, request: HTTPRequest) throws(InvariantViolation) {
        let upper = String(decoding: host.utf8.map { (0x61...0x7A).contains($0) ? $0 - 0x20 : $0 }, as: UTF8.self)
        let decision = policy.decide(peer: request.peer, localAddress: request.localAddress, host: host)
        let upperDecision = policy.decide(peer: request.peer, localAddress: request.localAddress, host: upper)
        try require(
            (decision == .allow) == (upperDecision == .allow),
            "Host \(host.debugDescription) and \(upper.debugDescription) decided apart")
        guard let name = AccessPolicy.hostName(fromHostHeader: host) else { return }
        try require(
            !name.utf8.contains(where: { (0x41...0x5A).contains($0) }),
            "Host name \(name.debugDescription) is not lower-cased")
        guard let address = IPAddress(name) else { return }
        try require(address.description == name, "Host IP \(name.debugDescription) is not canonical: \(address)")
        try require(
            AccessPolicy.hostName(fromHostHeader: address.uriHost) == name,
            "Host \(address.uriHost) does not name \(name)")
    }

    /// An answer the router accepts is the one recorded: its effect names the path's task and the body's answer,
    /// and the task is one the answering phone may see; anything else asks nothing of the shell.
    private static func checkAnswer(_ request: HTTPRequest, _ result: RouteResult) throws(InvariantViolation) {
        func asked() -> String { "\(request.method) \(request.path)" }
        guard case let .recordAnswer(id, answer)? = result.effect else {
            let isAnswer = PhoneRouter.answerTarget(request.path) != nil && request.method == "POST"
            try require(!isAnswer || result.response.status != 200, "\(asked()): a 200 that records nothing")
            return
        }
        try require(result.response.status == 200, "\(asked()): an answer effect with \(result.response.status)")
        try require(PhoneRouter.answerTarget(request.path).map(String.init) == id, "\(asked()): recorded for \(id)")
        let decoded = try? AnswerRequest.decode(from: request.body)
        try require(decoded == answer, "\(asked()): recorded \(answer), the body says \(decoded as Any)")
        let task = board.store.task(id: id)
        try require(
            task?.isVisible(toPhone: answer.phoneID) == true, "\(asked()): phone \(answer.phoneID) answered \(id)")
    }

    /// The board's answers to the phone's own reads, through the phone's parsers. The verdict depends on the path,
    /// the phone asking (for `current`) and the body alone, so it is kept for answers that come back.
    private static func checkPhoneReads(_ request: HTTPRequest, _ response: HTTPResponse) throws(InvariantViolation) {
        guard reads.contains(request.path) else { return }
        let phone = request.path == reads[0] ? request.queryValue("phone_id") ?? "" : ""
        // Neither the path nor the query's values hold a NUL (the server's parser refuses an encoded one).
        let key = Array(request.path.utf8) + [0] + Array(phone.utf8) + [0] + response.body
        try phoneReads.verdict(for: key) { () throws(InvariantViolation) in
            try checkPhoneRead(request, response, phone: phone)
            return true
        }
    }

    static let reads = ["/api/live-activity/current", "/api/live-activity/events", "/status", "/api/bluetooth/status"]
    static let phoneReads = VerdictCache<Bool>(slots: 1024, bytesEach: 8192)

    private static func checkPhoneRead(
        _ request: HTTPRequest, _ response: HTTPResponse, phone: String
    ) throws(InvariantViolation) {
        func asked() -> String { "\(request.method) \(request.path)" }
        switch request.path {
        case "/api/live-activity/current":
            guard let answer = try? BoardAnswer.current(from: response.body) else {
                throw InvariantViolation("\(asked()): the phone cannot read \(text(response.body))")
            }
            if case let .snapshot(view, _) = answer {
                try require(
                    view.phoneID == "" || view.phoneID == phone,
                    "\(asked()): phone \(phone) got \(view.phoneID ?? "-")'s task")
            }
        case "/api/live-activity/events":
            try require(
                (try? BoardAnswer.events(from: response.body)) != nil,
                "\(asked()): the phone cannot read \(text(response.body))")
        case "/status":
            try require(
                BoardStatusAnswer(body: response.body) == .instance(facts.instanceID),
                "\(asked()): the phone reads no instance from \(text(response.body))")
        default:
            try require(
                BoardBluetoothAnswer(body: response.body) != nil,
                "\(asked()): the phone cannot read \(text(response.body))")
        }
    }

    private static func text(_ bytes: [UInt8]) -> String { String(decoding: bytes, as: UTF8.self) }
}
