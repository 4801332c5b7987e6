import FoundationEssentials
import LiveActivity
import WireFormat

/// The board's working state, owned by `BoardSession` (on the board's serial executor) alone: the agent
/// router changes it, and after each durable change the session publishes it for readers with
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
    /// Encoded `/api/live-activity/current` bodies of the last publication, by what they show: a phone whose
    /// choice did not change keeps its bytes.
    private var encodedCurrent: [CurrentChoice: [UInt8]] = [:]

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
        let body = JSONBody.liveActivity(snapshot)
        encodedSnapshots[snapshot.requestID] = (snapshot.revision, body)
        return body
    }

    /// The state as readers may see it at (`now`, `instant`), with `retention` as the board's: every task's body
    /// encoded (reusing what is already encoded), bodies of tasks no longer in the store dropped, and
    /// `/api/live-activity/current`'s body for every phone. Costs one encoding per changed task and per phone
    /// whose choice changed.
    package mutating func published(now: Date, instant: Duration? = nil, retention: Duration) -> PublishedBoard {
        if encodedSnapshots.count > store.count {
            encodedSnapshots = encodedSnapshots.filter { store.task(id: $0.key) != nil }
        }
        for snapshot in store.unorderedTasks { _ = liveActivityBody(snapshot) }
        var kept: [CurrentChoice: [UInt8]] = [:]
        func answer(forPhone phone: String) -> PublishedCurrent.Answer {
            let selection = store.selection(forPhone: phone, now: now, instant: instant, retention: retention)
            guard let snapshot = selection.current else { return .notFound }
            let choice = CurrentChoice(
                requestID: snapshot.requestID, revision: snapshot.revision, others: selection.others)
            let body =
                kept[choice] ?? encodedCurrent[choice] ?? JSONBody.liveActivity(snapshot, others: selection.others)
            kept[choice] = body
            return PublishedCurrent.Answer(choice: choice, body: body)
        }
        let anyone = answer(forPhone: "")
        var byPhone: [String: PublishedCurrent.Answer] = [:]
        for snapshot in store.unorderedTasks where !snapshot.phoneID.isEmpty && byPhone[snapshot.phoneID] == nil {
            byPhone[snapshot.phoneID] = answer(forPhone: snapshot.phoneID)
        }
        encodedCurrent = kept
        let current = PublishedCurrent(
            byPhone: byPhone, anyone: anyone, retention: retention,
            firstShownEnd: store.firstShownEnd(now: now, instant: instant, retention: retention))
        return PublishedBoard(
            store: store, epoch: epoch, etag: storeETag, bodies: encodedSnapshots, current: current)
    }
}
