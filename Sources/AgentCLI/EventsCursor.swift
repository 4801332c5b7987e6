import WireFormat

/// Where `aidenctl events` is in the board's transition ring: the cursor and the ring's generation from the
/// last page (docs/task-store.md, "Transition ring"). Each page moves it on; the shell that follows polls
/// `request` and prints what `read` returns.
package struct EventsCursor: Sendable, Equatable {
    package var since: UInt64
    package var generation: String?

    package init(since: UInt64 = 0, generation: String? = nil) {
        self.since = since
        self.generation = generation
    }

    /// `GET /v1/events?since=N[&generation=G]`.
    package var request: AgentRequest { request(waitingFor: 0) }

    /// `GET /v1/events?since=N[&generation=G]&wait=S`: the board holds it until an event after the cursor comes,
    /// or `seconds` (at most 60) pass (docs/protocol.md §6.6); 0 is an ordinary read.
    package func request(waitingFor seconds: Int) -> AgentRequest {
        var path = "/v1/events?since=\(since)"
        if let generation { path += "&generation=" + PathSegment.encode(generation) }
        let hold = min(max(seconds, 0), TaskWait.longestHoldSeconds)
        if hold > 0 { path += "&wait=\(hold)" }
        return AgentRequest(
            method: "GET", path: path, headers: [AgentRequest.Header("Accept", "application/json")], holdSeconds: hold)
    }

    /// The complaint about an answer that is not an events page.
    static let notAPage = "no events page (events, next, generation) in the answer"

    /// What one page printed: one line per event on stdout, and on stderr what the page says was missed.
    package struct Page: Sendable, Equatable {
        package var standardOutput: String
        package var standardError: String
        package var eventCount: Int
        /// The page's events as sent, oldest first, for those that look at them (`task wait`, `task run`).
        package var events: [JSONValue] = []
        /// The ring started over or dropped events before they were read: some may have been missed.
        package var missedSome = false
    }

    /// Reads a page the daemon sent (a 2xx JSON object) and moves the cursor past it; nil when it is not a
    /// page, leaving the cursor where it was. Each event is a line: `at  transition  request_id`, or with
    /// `json` the event's object with sorted keys.
    package mutating func read(_ page: JSONValue, json: Bool) -> Page? {
        guard case let .object(members) = page, case let .array(events)? = members[.events],
            let next = members[.next]?.unsignedInteger, case let .string(generation)? = members[.generation]
        else { return nil }
        var out = ""
        var notes = ""
        if members[.resetRequired] == .bool(true), self.generation != nil || since > 0 {
            notes +=
                "aidenctl: the board's event ring started over (generation \(TerminalText.escaped(generation))); "
                + "these are all the events it kept\n"
        }
        if members[.truncated] == .bool(true) {
            notes += "aidenctl: some events left the board's ring before they were read\n"
        }
        for event in events {
            out += json ? JSONText.sortedLine(event) + "\n" : OutputFormatter.event(event)
        }
        since = next
        self.generation = generation
        return Page(
            standardOutput: out, standardError: notes, eventCount: events.count, events: events,
            missedSome: !notes.isEmpty)
    }
}
