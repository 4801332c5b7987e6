import FoundationEssentials
import WireFormat

/// The task a running client's line and tray lead with, at the revision its card shows (`BarStatus.task`). It is
/// what `aiden-phone stop|done|refuse|dismiss` without an ID answers (the desktop entry's actions, Phosh's lock
/// screen): the answer goes with the revision the person saw, so the board refuses it as stale when the task has
/// moved on since, where reading the board's current revision at press time would take any newer prompt.
/// Served as one JSON object on the client's status socket (`GET /v1/task`).
package struct ShownTask: Sendable, Equatable, Codable {
    package var requestID: String
    /// The revision shown; nil when the board sent none (the answer then carries none).
    package var revision: UInt64?
    package var title: String?

    enum CodingKeys: String, CodingKey {
        case requestID = "request_id"
        case revision, title
    }

    package init(requestID: String, revision: UInt64?, title: String?) {
        self.requestID = requestID
        self.revision = revision
        self.title = title
    }

    /// `{"request_id":"chat_1","revision":7,"title":"Deploy"}` (members without a value left out).
    package var json: String {
        var members = ["\"request_id\":" + JSONString.quote(requestID)]
        if let revision { members.append("\"revision\":\(revision)") }
        if let title { members.append("\"title\":" + JSONString.quote(title)) }
        return "{" + members.joined(separator: ",") + "}"
    }

    /// Reads the socket's object; nil when it is not one or its id breaks the request-id rule (the id goes into
    /// the answer's URL path).
    package init?(json bytes: [UInt8]) {
        guard let task = try? JSONDecoder().decode(ShownTask.self, from: Data(bytes)),
            IdentifierRule.isValid(task.requestID)
        else { return nil }
        self = task
    }
}
