import Foundation
import PhoneCore

/// A board that speaks the Aiden profile and nothing of ours, built from its published behaviour
/// (docs/aiden-compatibility.md): `GET /api/live-activity/current?phone_id=` answering
/// `{"status":"ok","live_activity":{…}}` or `{"status":"not_found"}`, `GET /api/live-activity/status?request_id=`
/// answering the same shapes (an unknown id is `200 not_found`), RFC 3339 times, an ended task with `can_stop`
/// false, `shows_progress` false and `progress` 1, `tool_status`, `tool_started_at` and `locale` in every
/// snapshot. Every other path is a `404` (no events ring, no `/status`). Its Wake is 12 bytes, version 1, reason 4,
/// bytes 2–3 reserved and 0 (no epoch), and a little-endian sequence that restarts at 1 with every board process
/// (`restart()`).
///
/// Pure: `handle(method:path:query:)` answers a request; `answer(_:)` serves the pure session's tests and
/// `AidenProfileBoardServer` puts it on loopback HTTP for the client's.
package final class AidenProfileBoard: @unchecked Sendable {  // guarded by `lock`
    private let lock = NSLock()
    private var tasks: [String: [String: Any]] = [:]
    /// The order tasks last changed in; `current` shows the newest visible one.
    private var changes: [String] = []
    private var sequence: UInt64 = 0
    private var clock = Date(timeIntervalSince1970: 1_781_247_600)
    package private(set) var processes = 1
    private var served: [String] = []

    package init() {}

    /// The paths asked for, in order (a 404 included).
    package var paths: [String] { lock.withLock { served } }

    // MARK: The agent side (each change returns the Wake the board sends for it)

    /// Starts task `id`; returns its Wake.
    @discardableResult
    package func start(_ id: String, title: String, phoneID: String = "", locale: String = "en-US") -> [UInt8] {
        change(id) { _ in
            [
                "request_id": id, "phone_id": phoneID, "status": "running", "phase": "planning", "task_title": title,
                "current_step": "", "current_action": "", "current_target": "", "current_app": "",
                "last_tool_name": "", "last_error": "", "progress": 0.0, "shows_progress": true, "can_stop": true,
                "requires_app": false, "tool_status": "", "tool_started_at": NSNull(), "locale": locale,
                "started_at": self.stamp(), "updated_at": self.stamp(), "ended_at": NSNull(),
            ]
        }
    }

    /// Changes members of task `id` (`tool_status` stamps `tool_started_at` when it changes); returns the Wake.
    @discardableResult
    package func update(_ id: String, _ fields: [String: Any]) -> [UInt8] {
        change(id) { task in
            var task = task
            if let tool = fields["tool_status"] as? String, tool != task["tool_status"] as? String ?? "" {
                task["tool_started_at"] = tool.isEmpty ? NSNull() : self.stamp() as Any
            }
            for (key, value) in fields { task[key] = value }
            task["updated_at"] = self.stamp()
            return task
        }
    }

    /// Ends task `id` as the Aiden profile publishes an end; returns the Wake.
    @discardableResult
    package func end(_ id: String, status: String = "completed") -> [UInt8] {
        update(
            id,
            [
                "status": status, "can_stop": false, "shows_progress": false, "progress": 1.0, "tool_status": "",
                "ended_at": stamp(),
            ])
    }

    /// The board process restarted: its sequence starts again at 1 (its epoch bytes stay 0), its tasks stay.
    package func restart() {
        lock.withLock {
            sequence = 0
            processes += 1
        }
    }

    /// The board's clock moves on (the tool line's elapsed time counts from its stamps).
    package func advance(seconds: Double) { lock.withLock { clock = clock.addingTimeInterval(seconds) } }

    package var now: Date { lock.withLock { clock } }

    private func change(_ id: String, _ edit: ([String: Any]) -> [String: Any]) -> [UInt8] {
        lock.withLock {
            tasks[id] = edit(tasks[id] ?? [:])
            changes.removeAll { $0 == id }
            changes.append(id)
            sequence += 1
            return Self.wake(sequence: sequence)
        }
    }

    /// `01 04 00 00` and the sequence, little-endian.
    package static func wake(sequence: UInt64) -> [UInt8] {
        [1, 4, 0, 0] + (0..<8).map { UInt8(truncatingIfNeeded: sequence >> (8 * $0)) }
    }

    private func stamp() -> String {
        Date(timeIntervalSince1970: clock.timeIntervalSince1970.rounded(.down)).formatted(.iso8601)
    }

    // MARK: The phone side

    /// One request: the status and the JSON body.
    package func handle(method: String, path: String, query: [String: String]) -> (status: Int, body: [UInt8]) {
        lock.withLock {
            served.append(path)
            guard method == "GET" || method == "HEAD" else { return (405, Array("Method Not Allowed".utf8)) }
            switch path {
            case "/api/live-activity/current":
                let phone = query["phone_id"] ?? ""
                let id = changes.last { id in
                    let owner = tasks[id]?["phone_id"] as? String ?? ""
                    return owner.isEmpty || owner == phone
                }
                return (200, envelope(id.flatMap { tasks[$0] }))
            case "/api/live-activity/status":
                return (200, envelope(query["request_id"].flatMap { tasks[$0] }))
            default:
                return (404, Array("Not Found".utf8))
            }
        }
    }

    private func envelope(_ task: [String: Any]?) -> [UInt8] {
        let object: [String: Any] = task.map { ["status": "ok", "live_activity": $0] } ?? ["status": "not_found"]
        return (try? Array(JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]))) ?? []
    }

    /// The same, for the pure session's tests: a `BoardRequest` answered as the HTTP server would.
    package func answer(_ request: BoardRequest) -> BoardResponse {
        let parts = request.target.split(separator: "?", maxSplits: 1).map(String.init)
        var query: [String: String] = [:]
        for pair in (parts.count > 1 ? parts[1] : "").split(separator: "&") {
            let item = pair.split(separator: "=", maxSplits: 1).map(String.init)
            query[item[0]] = item.count > 1 ? (item[1].removingPercentEncoding ?? item[1]) : ""
        }
        let (status, body) = handle(method: request.method, path: parts[0], query: query)
        return .answered(status: status, etag: nil, body: body)
    }
}
