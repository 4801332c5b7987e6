import Foundation
import PhoneCore

@testable import PhoneService

/// An in-memory stand-in for aiden-board's phone API, answering `BoardRequest`s the way the board
/// does: `current` with an ETag of `"epoch-revision"` and 304 on a match, the events ring with a
/// generation, `reset_required` on a stale generation, `/status` with an instance id. It can also
/// misbehave (unreachable, 403, malformed bodies) to exercise the client's problem paths.
final class FakeBoard: @unchecked Sendable {  // used from one test thread at a time
    enum Mode {
        case normal
        case unreachable(String)
        case status(Int)
        case malformed
    }

    var mode = Mode.normal
    var epoch: UInt16 = 1234
    var generation = "1234-g1"
    var instanceID = "a1b2c3"
    var revision: UInt64 = 1
    var snapshot: [String: Any]?
    var ring: [(id: UInt64, requestID: String, transition: String)] = []
    private(set) var requests: [BoardRequest] = []

    var currentRequests: Int { requests.filter { if case .current = $0 { true } else { false } }.count }
    var statusRequests: Int { requests.filter { $0 == .status }.count }
    var eventsRequests: Int { requests.filter { if case .events = $0 { true } else { false } }.count }
    var appStates: [AppState] {
        requests.compactMap { if case let .appState(state, _) = $0 { state } else { nil } }
    }

    var etag: String { "\"\(epoch)-\(revision)\"" }

    // MARK: The agent side

    func start(_ id: String, title: String = "Open Settings") {
        snapshot = [
            "request_id": id, "status": "running", "phase": "planning", "task_title": title,
            "current_step": "Planning", "progress": 0.0, "shows_progress": true,
        ]
        record(id, "started")
    }

    func update(_ fields: [String: Any], transition: String? = nil) {
        guard var snapshot else { return }
        for (key, value) in fields { snapshot[key] = value }
        self.snapshot = snapshot
        revision += 1
        if let transition, let id = snapshot["request_id"] as? String { record(id, transition, bump: false) }
    }

    func handoff() {
        update(["phase": "waiting_user", "current_action": "request_user_input"], transition: "handoff")
    }

    func end(_ status: String) {
        update(["status": status], transition: status)
    }

    func record(_ id: String, _ transition: String, bump: Bool = true) {
        if bump { revision += 1 }
        ring.append(((ring.last?.id ?? 0) + 1, id, transition))
    }

    /// The state directory was wiped: new epoch, new generation, nothing stored.
    func wipe(epoch newEpoch: UInt16) {
        epoch = newEpoch
        generation = "\(newEpoch)-g1"
        snapshot = nil
        ring = []
        revision = 1
    }

    // MARK: The phone side

    func answer(_ request: BoardRequest) -> BoardResponse {
        requests.append(request)
        switch mode {
        case let .unreachable(detail):
            return .failed(detail: detail)
        case let .status(code):
            return .answered(
                status: code, etag: nil,
                body: Array(
                    #"{"status":"error","error":{"code":"forbidden","message":"peer not allowed"}}"#.utf8))
        case .malformed:
            return .answered(status: 200, etag: nil, body: Array("this is not JSON".utf8))
        case .normal:
            break
        }
        switch request {
        case .status:
            return json(["status": "ok", "version": "0.1.0", "instance_id": instanceID, "epoch": Int(epoch)])
        case let .current(_, ifNoneMatch):
            if ifNoneMatch == etag { return .answered(status: 304, etag: etag, body: []) }
            guard let snapshot else { return json(["status": "not_found"], etag: etag) }
            var body = snapshot
            body["revision"] = Int(revision)
            return json(["status": "ok", "live_activity": body], etag: etag)
        case let .events(cursor):
            let last = ring.last?.id ?? 0
            let reset = (cursor.generation.map { $0 != generation } ?? false) || cursor.since > last
            let since = reset ? 0 : cursor.since
            let events = ring.filter { $0.id > since }.map {
                [
                    "id": Int($0.id), "request_id": $0.requestID, "transition": $0.transition,
                    "at": "2026-06-12T07:00:00Z",
                ] as [String: Any]
            }
            return json(
                [
                    "status": "ok", "epoch": Int(epoch), "generation": generation, "events": events,
                    "next": Int(last), "truncated": false, "reset_required": reset,
                ], etag: etag)
        case .appState:
            return json(["status": "ok"])
        }
    }

    private func json(_ object: [String: Any], etag: String? = nil) -> BoardResponse {
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data()
        return .answered(status: 200, etag: etag, body: Array(data))
    }
}

/// The fake board as a transport: answers at once on the caller's thread (the client's mailbox
/// queues the answer), or holds requests until `releaseHeld()` (a fetch in flight).
final class FakeBoardTransport: BoardTransport, @unchecked Sendable {  // guarded by `lock`
    let board: FakeBoard
    private let lock = NSLock()
    private var holding = false
    private var held: [(BoardRequest, @Sendable (BoardResponse) -> Void)] = []

    init(board: FakeBoard = FakeBoard()) {
        self.board = board
    }

    var heldCount: Int { lock.withLock { held.count } }

    func hold() { lock.withLock { holding = true } }

    func send(_ request: BoardRequest, completion: @escaping @Sendable (BoardResponse) -> Void) {
        let response: BoardResponse? = lock.withLock {
            if holding {
                held.append((request, completion))
                return nil
            }
            return board.answer(request)
        }
        if let response { completion(response) }
    }

    /// Stops holding and answers what was held (and, at once, whatever follows).
    func releaseHeld() {
        let pending = lock.withLock {
            holding = false
            defer { held.removeAll() }
            return held
        }
        for (request, completion) in pending {
            let response = lock.withLock { board.answer(request) }
            completion(response)
        }
    }
}
