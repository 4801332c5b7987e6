import WireFormat

/// The outer objects of the agent API's answers, read permissively.
enum ResponseEnvelopes {
    /// `{"status":"ok","live_activity":{…}}` (start, update, end, show).
    struct Snapshot: Decodable {
        var liveActivity: SnapshotView?

        init(from decoder: any Decoder) throws {
            liveActivity = try decoder.container(keyedBy: EnvelopeKey.self).decodeIfPresent(
                SnapshotView.self, forKey: .liveActivity)
        }
    }

    /// `{"status":"ok","tasks":[…]}` (list).
    struct TaskList: Decodable {
        var tasks: [SnapshotView]?

        init(from decoder: any Decoder) throws {
            tasks = try decoder.container(keyedBy: EnvelopeKey.self).decodeIfPresent(
                [SnapshotView].self, forKey: .tasks)
        }
    }
}
