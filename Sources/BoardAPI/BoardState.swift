import FoundationEssentials
import LiveActivity

/// The board's working state, owned by the engine's writer (its serial executor) alone: the agent
/// router changes it, and after each durable change the writer publishes it for readers with
/// `published()`.
package struct BoardState: Sendable {
    package var store: TaskStore
    /// The board epoch (docs/protocol.md §2.4): part of every ETag, so a wiped board never matches an old tag.
    package var epoch: UInt16
    /// This run of the board (`instance_id` in `/status`, 64 random bits drawn at each start): part of every ETag,
    /// because a crash can lose the last second of lazy writes, and the revisions after a restart then repeat
    /// numbers the phone already holds with other content.
    package let instanceID: String
    /// Encoded `{"status":"ok","live_activity":…}` bodies by request id, each valid for one snapshot
    /// revision: every revision is encoded once, whichever answer needs it first.
    private var encodedSnapshots: [String: (revision: UInt64, body: [UInt8])] = [:]

    package init(store: TaskStore, epoch: UInt16, instanceID: String) {
        self.store = store
        self.epoch = epoch
        self.instanceID = instanceID
    }

    /// The strong validator for everything derived from the store: `"<epoch>-<instance>-<revision>"`. Within one
    /// run a revision names one content; the instance keeps a revision reused after a crash (or a restored backup)
    /// from matching a tag the phone kept; the epoch keeps a wiped board apart.
    package var storeETag: String { "\"\(epoch)-\(instanceID)-\(store.revision)\"" }

    /// The `{"status":"ok","live_activity":{…}}` body for `snapshot`, encoded at most once per revision.
    mutating func liveActivityBody(_ snapshot: TaskSnapshot) -> [UInt8] {
        if let cached = encodedSnapshots[snapshot.requestID], cached.revision == snapshot.revision {
            return cached.body
        }
        let body = JSONBody.ok(["live_activity": snapshot])
        encodedSnapshots[snapshot.requestID] = (snapshot.revision, body)
        return body
    }

    /// The state as readers may see it: every task's body encoded (reusing what is already encoded),
    /// bodies of tasks no longer in the store dropped. Costs one encoding per changed task.
    package mutating func published() -> PublishedBoard {
        if encodedSnapshots.count > store.count {
            encodedSnapshots = encodedSnapshots.filter { store.task(id: $0.key) != nil }
        }
        for snapshot in store.unorderedTasks { _ = liveActivityBody(snapshot) }
        return PublishedBoard(store: store, epoch: epoch, etag: storeETag, bodies: encodedSnapshots)
    }
}
