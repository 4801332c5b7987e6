import Foundation
import PhoneCore
import WireFormat

/// An in-memory stand-in for aiden-board's phone API, answering `BoardRequest`s the way the board
/// does: `current` with an ETag of `"epoch-revision"` and 304 on a match, any task by its request id
/// (`/api/live-activity/status`), the events ring with a generation, `reset_required` on a stale
/// generation, `/status` with an instance id. It can also misbehave (unreachable, 403, malformed
/// bodies, for everything or only for task reads) to exercise the client's problem paths.
///
/// A target of its own because both the pure session's tests (PhoneCoreTests) and the client's
/// (PhoneServiceTests) drive it.
package final class FakeBoard: @unchecked Sendable {  // used from one test thread at a time
    package enum Mode {
        case normal
        case unreachable(String)
        case status(Int)
        case malformed
    }

    package var mode = Mode.normal
    package var epoch: UInt16 = 1234
    package var generation = "1234-g1"
    package var instanceID = "a1b2c3"
    package var revision: UInt64 = 1
    /// Every task the board holds, by request id, with the revision it last changed in.
    package private(set) var tasks: [String: (fields: [String: Any], revision: UInt64)] = [:]
    /// The task `current` answers with: the last one started.
    package private(set) var currentID: String?
    /// How task reads (`/api/live-activity/status`) are answered; nil: as everything else (`mode`).
    package var taskMode: Mode?
    package var ring: [(id: UInt64, requestID: String, transition: String, phoneID: String)] = []
    /// Sent beside the current snapshot as `others` (docs/protocol.md §3.3); nil: left out, as an older board.
    package var others: (active: Int, waiting: Int)?
    /// The board's Bluetooth address in `/api/bluetooth/status` (nil: none, the loopback Wake transport).
    package var bluetoothAddress: String?
    /// Set: `POST /api/bluetooth/pairing/start` is refused with this status and message.
    package var pairingRefusal: (status: Int, message: String)?
    /// The refusal's `Retry-After` (a cooling-down window's `429`), as the transport reads it.
    package var pairingRetryAfter: Duration?
    /// Whether the board still holds the asking phone's bond (what `phone_bonded` requests hear).
    package var holdsPhoneBond = false
    package private(set) var requests: [BoardRequest] = []
    /// The answers recorded through `POST /api/live-activity/tasks/{id}/answer`, by `answer_id`, with the
    /// body of the first reply (a retry with the same id gets it again, and records nothing new).
    package private(set) var answerReplies: [String: [UInt8]] = [:]
    /// The answers as recorded, oldest first: (request id, answer, answer id, phone id).
    package private(set) var answers: [(requestID: String, answer: String, answerID: String, phoneID: String)] = []
    /// The `revision` each answer request carried (nil: none), in the order they came.
    package private(set) var answerRevisions: [UInt64?] = []
    /// Set: answer requests get no HTTP answer this many more times (a lost reply; the answer is still
    /// recorded when `recordBeforeFailing`).
    package var failAnswers = 0
    package var recordBeforeFailing = false

    package var currentRequests: Int { requests.filter { if case .current = $0 { true } else { false } }.count }
    package var statusRequests: Int { requests.filter { $0 == .status }.count }
    package var eventsRequests: Int { requests.filter { if case .events = $0 { true } else { false } }.count }
    package var appStates: [AppState] {
        requests.compactMap { if case let .appState(state, _, _, _) = $0 { state } else { nil } }
    }
    /// The request ids of the task reads, in order.
    package var taskReads: [String] {
        requests.compactMap { if case let .task(id) = $0 { id } else { nil } }
    }

    /// The snapshot `current` answers with.
    package var snapshot: [String: Any]? { currentID.flatMap { tasks[$0]?.fields } }

    package var etag: String { "\"\(epoch)-\(revision)\"" }

    package init() {}

    // MARK: The agent side

    package func start(_ id: String, title: String = "Open Settings", phoneID: String = "", canStop: Bool = false) {
        currentID = id
        record(id, "started")
        ring[ring.count - 1].phoneID = phoneID
        tasks[id] = (
            [
                "request_id": id, "status": "running", "phase": "planning", "task_title": title,
                "current_step": "Planning", "progress": 0.0, "shows_progress": true, "phone_id": phoneID,
                "can_stop": canStop,
            ], revision
        )
    }

    /// Changes the current task, or task `id` (which stays off `current` if it is not the current one).
    package func update(_ fields: [String: Any], transition: String? = nil, of id: String? = nil) {
        guard let id = id ?? currentID, var task = tasks[id]?.fields else { return }
        for (key, value) in fields { task[key] = value }
        revision += 1
        tasks[id] = (task, revision)
        if let transition { record(id, transition, bump: false) }
    }

    package func handoff(step: String? = nil, of id: String? = nil) {
        var fields: [String: Any] = ["phase": "waiting_user", "current_action": "request_user_input"]
        if let step { fields["current_step"] = step }
        update(fields, transition: "handoff", of: id)
    }

    package func end(_ status: String, error: String = "", of id: String? = nil) {
        update(
            error.isEmpty ? ["status": status] : ["status": status, "last_error": error], transition: status, of: id)
    }

    package func record(_ id: String, _ transition: String, bump: Bool = true) {
        if bump { revision += 1 }
        let phoneID = tasks[id]?.fields["phone_id"] as? String ?? ""
        ring.append(((ring.last?.id ?? 0) + 1, id, transition, phoneID))
    }

    /// Every task removed (pruned): `current` answers `not_found`, the ring stays.
    package func removeAll() {
        tasks = [:]
        currentID = nil
        revision += 1
    }

    /// The state directory was wiped: new epoch, new generation, nothing stored.
    package func wipe(epoch newEpoch: UInt16) {
        epoch = newEpoch
        generation = "\(newEpoch)-g1"
        tasks = [:]
        currentID = nil
        ring = []
        revision = 1
    }

    // MARK: The phone side

    package func answer(_ request: BoardRequest) -> BoardResponse {
        requests.append(request)
        let mode: Mode = if case .task = request { taskMode ?? self.mode } else { self.mode }
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
        case .bluetoothStatus:
            return json([
                "status": "ok", "transport": bluetoothAddress == nil ? "loopback" : "bluez",
                "address": bluetoothAddress ?? NSNull(), "adapter": "hci0", "epoch": Int(epoch),
            ])
        case let .current(_, ifNoneMatch):
            if ifNoneMatch == etag { return .answered(status: 304, etag: etag, body: []) }
            guard let currentID, let task = tasks[currentID] else { return json(["status": "not_found"], etag: etag) }
            var body = task.fields
            body["revision"] = Int(task.revision)
            if let others { body["others"] = ["active": others.active, "waiting": others.waiting] }
            return json(["status": "ok", "live_activity": body], etag: etag)
        case let .task(id):
            guard let task = tasks[id] else { return json(["status": "not_found"], status: 404) }
            var body = task.fields
            body["revision"] = Int(task.revision)
            return json(["status": "ok", "live_activity": body], etag: "\"\(epoch)-\(task.revision)\"")
        case let .events(cursor):
            let last = ring.last?.id ?? 0
            let reset = (cursor.generation.map { $0 != generation } ?? false) || cursor.since > last
            let since = reset ? 0 : cursor.since
            let events = ring.filter { $0.id > since }.map {
                [
                    "id": Int($0.id), "request_id": $0.requestID, "transition": $0.transition,
                    "at": "2026-06-12T07:00:00Z", "phone_id": $0.phoneID,
                ] as [String: Any]
            }
            return json(
                [
                    "status": "ok", "epoch": Int(epoch), "generation": generation, "events": events,
                    "next": Int(last), "truncated": false, "reset_required": reset,
                ], etag: etag)
        case .appState:
            return json(["status": "ok"])
        case let .openPairingWindow(seconds, _, phoneBonded):
            if phoneBonded && holdsPhoneBond {
                return json(["status": "ok", "pairing": ["open": false, "bonded": true]])
            }
            if let (status, message) = pairingRefusal {
                let body = ["status": "error", "error": ["code": "forbidden", "message": message]] as [String: Any]
                let data = (try? JSONSerialization.data(withJSONObject: body, options: [.sortedKeys])) ?? Data()
                return .answered(status: status, etag: nil, body: Array(data), retryAfter: pairingRetryAfter)
            }
            return json(["status": "ok", "pairing": ["open": true, "seconds": seconds]])
        case let .answer(id, answer, answerID, phoneID, shown):
            answerRevisions.append(shown)
            // The board's rule in short (LiveActivityTests has it whole): a revision other than the task's is stale.
            if let shown, answerReplies[answerID] == nil, let task = tasks[id], task.revision != shown {
                return refusal(409, "stale_revision", "task \(id) changed since revision \(shown)")
            }
            if failAnswers > 0 {
                failAnswers -= 1
                if recordBeforeFailing { _ = takeAnswer(id, answer.rawValue, answerID: answerID, phoneID: phoneID) }
                return .failed(detail: "connection reset by peer")
            }
            return takeAnswer(id, answer.rawValue, answerID: answerID, phoneID: phoneID)
        }
    }

    /// `POST /api/live-activity/tasks/{id}/answer` as docs/protocol.md §3.8 has it: idempotent per
    /// `answer_id`, 404 for a task addressed to another phone, 409 with its codes.
    package func takeAnswer(_ id: String, _ answer: String, answerID: String, phoneID: String) -> BoardResponse {
        if let reply = answerReplies[answerID] { return .answered(status: 200, etag: nil, body: reply) }
        guard var task = tasks[id]?.fields else { return refusal(404, "not_found", "no task \(id)") }
        let owner = task["phone_id"] as? String ?? ""
        if !owner.isEmpty, !phoneID.isEmpty, owner != phoneID { return refusal(404, "not_found", "no task \(id)") }
        let status = task["status"] as? String ?? "running"
        let active = status == "running" || status == "needs_app"
        let waiting =
            (task["phase"] as? String == "waiting_user" && task["current_action"] as? String == "request_user_input")
            || status == "needs_app"
        let recorded = task["answer"] as? [String: Any]
        switch answer {
        case "stop":
            guard active else { return refusal(409, "task_ended", "the task has ended") }
            guard task["can_stop"] as? Bool == true else {
                return refusal(409, "not_stoppable", "the task cannot be stopped")
            }
            if let recorded, recorded["answer"] as? String == "stop" { return answered(recorded, task, answerID) }
        case "done", "refuse":
            guard waiting else { return refusal(409, "not_waiting", "the task is not waiting for the person") }
        case "dismiss":
            guard !active else { return refusal(409, "not_ended", "the task has not ended") }
        default:
            return refusal(400, "invalid_field", "answer must be stop, done, refuse or dismiss")
        }
        let entry: [String: Any] = [
            "answer": answer, "answer_id": answerID, "phone_id": phoneID, "answered_at": "2026-06-12T07:00:09Z",
        ]
        if answer == "dismiss" {
            task["dismissed_at"] = "2026-06-12T07:00:09Z"
        } else {
            task["answer"] = entry
            if answer != "stop", status == "needs_app" { task["status"] = "running" }
        }
        revision += 1
        tasks[id] = (task, revision)
        record(id, answer == "stop" ? "stop_requested" : answer == "dismiss" ? "dismissed" : "answered", bump: false)
        answers.append((id, answer, answerID, phoneID))
        return answered(entry, task, answerID)
    }

    private func answered(_ record: [String: Any], _ task: [String: Any], _ answerID: String) -> BoardResponse {
        var snapshot = task
        snapshot["revision"] = Int(revision)
        let body = ["ok": true, "answer": record, "task": snapshot] as [String: Any]
        let data = (try? JSONSerialization.data(withJSONObject: body, options: [.sortedKeys])) ?? Data()
        answerReplies[answerID] = Array(data)
        return .answered(status: 200, etag: nil, body: Array(data))
    }

    private func refusal(_ status: Int, _ code: String, _ message: String) -> BoardResponse {
        json(["status": "error", "error": ["code": code, "message": message]], status: status)
    }

    private func json(_ object: [String: Any], status: Int = 200, etag: String? = nil) -> BoardResponse {
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data()
        return .answered(status: status, etag: etag, body: Array(data))
    }
}
