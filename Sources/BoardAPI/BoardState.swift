import FoundationEssentials
import LiveActivity

/// Everything the routers read and change, owned by the board's engine behind one lock.
package struct BoardState: Sendable {
    package var store: TaskStore
    /// The board epoch (CONTRACT.md §2): part of every ETag, so a wiped board never matches an old tag.
    package var epoch: UInt16
    /// What the phone last reported about its companion app (`POST /api/phone/app-state`).
    package var phoneAppState: PhoneAppState?
    /// Encoded `{"status":"ok","live_activity":…}` bodies by request id, valid for one snapshot revision:
    /// the phone's hot path serves bytes instead of running JSONEncoder per request.
    var encodedSnapshots: [String: (revision: UInt64, body: [UInt8])] = [:]

    package init(store: TaskStore, epoch: UInt16, phoneAppState: PhoneAppState? = nil) {
        self.store = store
        self.epoch = epoch
        self.phoneAppState = phoneAppState
    }

    /// The strong validator for everything derived from the store.
    package var storeETag: String { "\"\(epoch)-\(store.revision)\"" }

    /// Forgets cached encodings; needed when the store is rolled back (revisions may be reused).
    package mutating func invalidateCaches() {
        encodedSnapshots.removeAll()
    }

    /// The `{"status":"ok","live_activity":{…}}` body for `snapshot`, encoded at most once per revision.
    mutating func liveActivityBody(_ snapshot: TaskSnapshot) -> [UInt8] {
        if let cached = encodedSnapshots[snapshot.requestID], cached.revision == snapshot.revision {
            return cached.body
        }
        let body = JSONBody.ok(["live_activity": snapshot])
        if encodedSnapshots.count >= 64 { encodedSnapshots.removeAll(keepingCapacity: true) }
        encodedSnapshots[snapshot.requestID] = (snapshot.revision, body)
        return body
    }
}
