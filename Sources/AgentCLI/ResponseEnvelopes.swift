import WireFormat

/// The outer objects of the agent API's answers, read permissively.
enum ResponseEnvelopes {
    /// `{"status":"ok","live_activity":{…}}` (start, update, end, show).
    struct Snapshot: Decodable {
        var liveActivity: SnapshotView?

        enum CodingKeys: String, CodingKey { case liveActivity = "live_activity" }
    }

    /// `{"status":"ok","tasks":[…]}` (list).
    struct TaskList: Decodable {
        var tasks: [SnapshotView]?
    }

    /// `{"status":"error","error":{"code":"…","message":"…","field":"…"}}`.
    struct Failure: Decodable {
        var error: DaemonError?
    }
}

/// The daemon's description of a refused request.
package struct DaemonError: Decodable, Sendable, Equatable {
    package var code: String?
    package var message: String?
    package var field: String?

    package init(code: String? = nil, message: String? = nil, field: String? = nil) {
        self.code = code
        self.message = message
        self.field = field
    }
}
