import FoundationEssentials
import LiveActivity
import WireFormat

/// `/api/live-activity/current`'s `live_activity` member: the snapshot's fields and `others` beside them, written
/// by the encoder into one object (sorted keys like every answer), so `others` is there whatever the key order.
struct CurrentSnapshot: Encodable, Sendable {
    let snapshot: TaskSnapshot
    let others: OtherTasks

    func encode(to encoder: any Encoder) throws {
        try snapshot.encode(to: encoder)
        // The same encoder's keyed container again: the encoder merges both into the snapshot's object.
        var container = encoder.container(keyedBy: CurrentKey.self)
        for key in CurrentKey.allCases {
            switch key {
            case .others: try container.encode(others, forKey: key)
            }
        }
    }

    /// `{"status":"ok","live_activity":{…snapshot,"others":{…}}}`.
    static func body(_ snapshot: TaskSnapshot, others: OtherTasks) -> [UInt8] {
        JSONBody.ok([.liveActivity: CurrentSnapshot(snapshot: snapshot, others: others)])
    }
}
