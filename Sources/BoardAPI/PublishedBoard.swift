import FoundationEssentials
import LiveActivity

/// The board as the phone may see it: an immutable value the engine's writer publishes after each
/// change is durable, which the phone's handlers read without waiting on the writer or the disk.
/// Every task's answer body is encoded already, so serving one copies no JSON.
package struct PublishedBoard: Sendable {
    package let store: TaskStore
    package let epoch: UInt16
    /// The strong validator of everything derived from `store` (`BoardState.storeETag`).
    package let etag: String
    /// `{"status":"ok","live_activity":…}` per request id, encoded at `revision`.
    let bodies: [String: (revision: UInt64, body: [UInt8])]

    /// The answer body of `snapshot`, from this publication or (never for a published task) encoded now.
    func liveActivityBody(_ snapshot: TaskSnapshot) -> [UInt8] {
        if let encoded = bodies[snapshot.requestID], encoded.revision == snapshot.revision { return encoded.body }
        return JSONBody.ok(["live_activity": snapshot])
    }
}
