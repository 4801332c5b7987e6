import Foundation
import PhoneCore
import WireFormat

/// An in-memory stand-in for aiden-board's phone API, answering `BoardRequest`s the way the board
/// does: `current` with an ETag of `"epoch-revision"` and 304 on a match, the events ring with a
/// generation, `reset_required` on a stale generation, `/status` with an instance id. It can also
/// misbehave (unreachable, 403, malformed bodies) to exercise the client's problem paths.
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
    package var snapshot: [String: Any]?
    package var ring: [(id: UInt64, requestID: String, transition: String)] = []
    package private(set) var requests: [BoardRequest] = []

    package var currentRequests: Int { requests.filter { if case .current = $0 { true } else { false } }.count }
    package var statusRequests: Int { requests.filter { $0 == .status }.count }
    package var eventsRequests: Int { requests.filter { if case .events = $0 { true } else { false } }.count }
    package var appStates: [AppState] {
        requests.compactMap { if case let .appState(state, _) = $0 { state } else { nil } }
    }

    package var etag: String { "\"\(epoch)-\(revision)\"" }

    package init() {}

    // MARK: The agent side

    package func start(_ id: String, title: String = "Open Settings") {
        snapshot = [
            "request_id": id, "status": "running", "phase": "planning", "task_title": title,
            "current_step": "Planning", "progress": 0.0, "shows_progress": true,
        ]
        record(id, "started")
    }

    package func update(_ fields: [String: Any], transition: String? = nil) {
        guard var snapshot else { return }
        for (key, value) in fields { snapshot[key] = value }
        self.snapshot = snapshot
        revision += 1
        if let transition, let id = snapshot["request_id"] as? String { record(id, transition, bump: false) }
    }

    package func handoff() {
        update(["phase": "waiting_user", "current_action": "request_user_input"], transition: "handoff")
    }

    package func end(_ status: String) {
        update(["status": status], transition: status)
    }

    package func record(_ id: String, _ transition: String, bump: Bool = true) {
        if bump { revision += 1 }
        ring.append(((ring.last?.id ?? 0) + 1, id, transition))
    }

    /// The state directory was wiped: new epoch, new generation, nothing stored.
    package func wipe(epoch newEpoch: UInt16) {
        epoch = newEpoch
        generation = "\(newEpoch)-g1"
        snapshot = nil
        ring = []
        revision = 1
    }

    // MARK: The phone side

    package func answer(_ request: BoardRequest) -> BoardResponse {
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
        case .bluetoothStatus:
            return json(["status": "ok", "transport": "loopback", "address": NSNull(), "epoch": Int(epoch)])
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
