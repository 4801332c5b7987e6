import LiveActivity
import WireFormat

/// A read of the transition ring, `?since=N&generation=G`: the same rules and the same answer on the phone's
/// `/api/live-activity/events` and the agent's `/v1/events`.
struct EventsQuery {
    var since: UInt64
    var generation: String?

    /// The query's cursor, or the `400` that names the bad parameter. `since` defaults to 0; an empty
    /// `generation` counts as none.
    static func parse(_ request: HTTPRequest) -> Result<EventsQuery, JSONError> {
        var since: UInt64 = 0
        if let text = request.queryValue("since") {
            guard let cursor = QueryRules.cursor(text) else {
                return .failure(Responses.invalidParameterError("since", "must be a non-negative integer"))
            }
            since = cursor
        }
        let generation = request.queryValue("generation").flatMap { $0.isEmpty ? nil : $0 }
        return .success(EventsQuery(since: since, generation: generation))
    }

    /// `{"status":"ok","epoch":…,"generation":…,"events":[…],"next":…,"truncated":…,"reset_required":…}`.
    func body(store: TaskStore, epoch: UInt16) -> [UInt8] {
        body(store.events(since: since, generation: generation), epoch: epoch)
    }

    /// The same for a page read already.
    func body(_ page: EventsPage, epoch: UInt16) -> [UInt8] {
        JSONBody.ok([
            .epoch: epoch, .generation: page.generation, .events: page.events, .next: page.next,
            .truncated: page.truncated, .resetRequired: page.resetRequired,
        ])
    }
}
