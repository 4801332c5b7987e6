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
    package var ring: [(id: UInt64, requestID: String, transition: String)] = []
    /// The board's Bluetooth address in `/api/bluetooth/status` (nil: none, the loopback Wake transport).
    package var bluetoothAddress: String?
    /// Set: `POST /api/bluetooth/pairing/start` is refused with this status and message.
    package var pairingRefusal: (status: Int, message: String)?
    package private(set) var requests: [BoardRequest] = []

    package var currentRequests: Int { requests.filter { if case .current = $0 { true } else { false } }.count }
    package var statusRequests: Int { requests.filter { $0 == .status }.count }
    package var eventsRequests: Int { requests.filter { if case .events = $0 { true } else { false } }.count }
    package var appStates: [AppState] {
        requests.compactMap { if case let .appState(state, _, _) = $0 { state } else { nil } }
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

    package func start(_ id: String, title: String = "Open Settings") {
        currentID = id
        record(id, "started")
        tasks[id] = (
            [
                "request_id": id, "status": "running", "phase": "planning", "task_title": title,
                "current_step": "Planning", "progress": 0.0, "shows_progress": true,
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
        ring.append(((ring.last?.id ?? 0) + 1, id, transition))
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
        case let .openPairingWindow(seconds, _):
            if let (status, message) = pairingRefusal {
                let body = ["status": "error", "error": ["code": "forbidden", "message": message]] as [String: Any]
                let data = (try? JSONSerialization.data(withJSONObject: body, options: [.sortedKeys])) ?? Data()
                return .answered(status: status, etag: nil, body: Array(data))
            }
            return json(["status": "ok", "pairing": ["open": true, "seconds": seconds]])
        }
    }

    private func json(_ object: [String: Any], status: Int = 200, etag: String? = nil) -> BoardResponse {
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data()
        return .answered(status: status, etag: etag, body: Array(data))
    }
}
