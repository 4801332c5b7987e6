import FoundationEssentials
import LiveActivity
import WireFormat

/// The board as the phone may see it: an immutable value `BoardSession` publishes after each
/// change (once durable, for the changes that must be), which the phone's handlers read without
/// waiting on the writer or the disk.
/// Every task's answer body is encoded already, so serving one copies no JSON.
package final class PublishedBoard: Sendable {
    package let store: TaskStore
    package let epoch: UInt16
    /// The strong validator of everything derived from `store` (`BoardState.storeETag`).
    package let etag: String
    /// `{"status":"ok","live_activity":…}` per request id, encoded at `revision`.
    let bodies: [String: (revision: UInt64, body: [UInt8])]
    /// The header fields of a 200 and of a 304 for `etag`, built once per publication.
    let okHeaders: [(name: String, value: String)]
    let notModifiedHeaders: [(name: String, value: String)]
    /// `/api/live-activity/current`'s body for every phone, `others` included, encoded at publication.
    let current: PublishedCurrent
    /// Holds until the board publishes the next one (`AnswerValidity`): the answers read from this one alone.
    package let validity = AnswerValidity()

    init(
        store: TaskStore, epoch: UInt16, etag: String, bodies: [String: (revision: UInt64, body: [UInt8])],
        current: PublishedCurrent
    ) {
        self.store = store
        self.epoch = epoch
        self.etag = etag
        self.bodies = bodies
        self.current = current
        okHeaders = Responses.jsonHeaders + [("ETag", etag)]
        notModifiedHeaders = Responses.notModifiedHeaders(etag: etag)
    }

    /// A JSON answer with this publication's ETag; `304 Not Modified` when the client has it already. `reusable`:
    /// the body is this publication's own (`HTTPResponse.reusable`), so are the 200 and the 304. `standing`: the
    /// body depends on the publication and the request alone, not on the clock, so both answers hold while this
    /// publication is the last (`HTTPResponse.validity`).
    func json(
        _ status: Int, _ body: [UInt8], request: HTTPRequest, reusable: Bool = false, standing: Bool = false
    ) -> HTTPResponse {
        let holds = reusable && standing && status == 200 ? validity : nil
        if status == 200, ETag.matches(ifNoneMatch: request.header("if-none-match"), tag: etag) {
            return HTTPResponse(status: 304, headers: notModifiedHeaders, reusable: reusable, validity: holds)
        }
        return HTTPResponse(
            status: status, headers: status == 200 ? okHeaders : Responses.jsonHeaders + [("ETag", etag)], body: body,
            reusable: reusable && status == 200, validity: holds)
    }

    /// The answer body of `snapshot`, from this publication or (never for a published task) encoded now.
    func liveActivityBody(_ snapshot: TaskSnapshot) -> [UInt8] {
        if let encoded = bodies[snapshot.requestID], encoded.revision == snapshot.revision { return encoded.body }
        return JSONBody.liveActivity(snapshot)
    }

    /// `/api/live-activity/current`'s body for `phone`: the one encoded at publication, unless an ended task's
    /// dismissal time has run out since (the writer prunes it and publishes anew within moments; meanwhile each
    /// request selects and encodes afresh, as the published one would be wrong). `standing`: it is the published
    /// one, and no ended task shown in it can leave the card by the clock alone (`PublishedCurrent.isTimeless`), so
    /// it holds until the next publication.
    func currentBody(
        forPhone phone: String, now: Date, instant: Duration?, retention: Duration
    ) -> (body: [UInt8], standing: Bool) {
        if let answer = current.answer(forPhone: phone, now: now, instant: instant, retention: retention) {
            return (answer.body, current.isTimeless)
        }
        let selection = store.selection(forPhone: phone, now: now, instant: instant, retention: retention)
        guard let snapshot = selection.current else { return (JSONBody.notFound, false) }
        return (JSONBody.liveActivity(snapshot, others: selection.others), false)
    }
}
