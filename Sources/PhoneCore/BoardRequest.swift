import FoundationEssentials
import WireFormat

/// One HTTP request the phone makes to the board, as a value: the pure session decides which one,
/// a `BoardTransport` performs it and answers with a `BoardResponse`.
package enum BoardRequest: Sendable, Equatable, CustomStringConvertible {
    /// `GET /status`: the board's `instance_id`, which names the connection when USB is not watched.
    case status
    /// `GET /api/bluetooth/status`: the board's Wake transport and Bluetooth address (bonding over the
    /// cable, `aiden-phone doctor`).
    case bluetoothStatus
    /// `GET /api/live-activity/current?phone_id=P`, conditional on the last answer's ETag.
    case current(phoneID: String, ifNoneMatch: String?)
    /// `GET /api/live-activity/events?since=N&generation=G`.
    case events(EventCursor)
    /// `GET /api/live-activity/status?request_id=R`: one task's snapshot, for an alert about a task
    /// the card does not show as the alert's transition left it.
    case task(requestID: String)
    /// `POST /api/phone/app-state` with
    /// `{"state":…,"return_entry":…,"return_entry_available":…,"phone_id":…,"phone_time":…}`. `phoneTime`
    /// (the phone's wall clock, RFC 3339) is stamped by the shell as it sends (`stamped(at:)`): the board
    /// takes its time from it when its own clock is unset or far off.
    case appState(AppState, returnEntry: ReturnEntry?, phoneID: String, phoneTime: String? = nil)
    /// `POST /api/live-activity/tasks/{request_id}/answer` with
    /// `{"answer":…,"answer_id":…,"phone_id":…,"revision":…}`: the person's answer. `answerID` is chosen once per
    /// press and sent again unchanged on a retry, so the board records the answer once. `revision` is the task's
    /// revision on the card the person answered (nil: not known, left out): the board refuses the answer as
    /// `stale_revision` when the task has started again or asked another question since.
    case answer(requestID: String, Answer, answerID: String, phoneID: String, revision: UInt64? = nil)
    /// `POST /api/bluetooth/pairing/start` with `{"seconds":N,"phone_address":"AA:…"}`: the board's pairing
    /// window, for bonding; the phone names its own adapter, so the board forgets a stale bond with it.
    case openPairingWindow(seconds: Int, phoneAddress: String?, phoneBonded: Bool = false)

    package var method: String {
        switch self {
        case .appState, .openPairingWindow, .answer: "POST"
        default: "GET"
        }
    }

    /// The path with its query string, ready to append to the board's URL.
    package var target: String {
        switch self {
        case .status:
            return "/status"
        case .bluetoothStatus:
            return "/api/bluetooth/status"
        case let .current(phoneID, _):
            return "/api/live-activity/current?phone_id=" + Self.percentEncoded(phoneID)
        case let .events(cursor):
            var text = "/api/live-activity/events?since=\(cursor.since)"
            if let generation = cursor.generation { text += "&generation=" + Self.percentEncoded(generation) }
            return text
        case let .task(requestID):
            return "/api/live-activity/status?request_id=" + Self.percentEncoded(requestID)
        case .appState:
            return "/api/phone/app-state"
        case .openPairingWindow:
            return "/api/bluetooth/pairing/start"
        case let .answer(requestID, _, _, _, _):
            return "/api/live-activity/tasks/" + Self.percentEncoded(requestID) + "/answer"
        }
    }

    package var headers: [(String, String)] {
        switch self {
        case let .current(_, etag?): [("If-None-Match", etag)]
        case .appState, .openPairingWindow, .answer: [("Content-Type", "application/json")]
        default: []
        }
    }

    package var body: [UInt8] {
        switch self {
        case let .appState(state, returnEntry, phoneID, phoneTime):
            // Every value is from a fixed alphabet (the state and entry names, the phone-id alphabet): no
            // escaping needed, but quote properly anyway so a future id rule cannot break the JSON. Both
            // return-entry fields are always sent: "none available" is said, not left to a default.
            let text =
                #"{"state":"# + JSONString.quote(state.rawValue)
                + #","return_entry":"# + JSONString.quote(returnEntry?.rawValue ?? "")
                + #","return_entry_available":"# + (returnEntry == nil ? "false" : "true")
                + #","phone_id":"# + JSONString.quote(phoneID)
                + (phoneTime.map { #","phone_time":"# + JSONString.quote($0) } ?? "") + "}"
            return Array(text.utf8)
        case let .answer(_, answer, answerID, phoneID, revision):
            let text =
                #"{"answer":"# + JSONString.quote(answer.rawValue) + #","answer_id":"# + JSONString.quote(answerID)
                + #","phone_id":"# + JSONString.quote(phoneID) + (revision.map { #","revision":\#($0)"# } ?? "")
                + "}"
            return Array(text.utf8)
        case let .openPairingWindow(seconds, phoneAddress, phoneBonded):
            let phone = phoneAddress.map { #","phone_address":"# + JSONString.quote($0) } ?? ""
            let bonded = phoneBonded ? #","phone_bonded":true"# : ""
            return Array(#"{"seconds":\#(seconds)\#(phone)\#(bonded)}"#.utf8)
        default:
            return []
        }
    }

    package var description: String { "\(method) \(target)" }

    /// This request as sent at wall-clock `date`: an app-state report carries it as `phone_time`
    /// (whole seconds, `2026-06-12T07:00:05Z`); every other request is unchanged.
    package func stamped(at date: Date) -> BoardRequest {
        guard case let .appState(state, returnEntry, phoneID, _) = self else { return self }
        return .appState(state, returnEntry: returnEntry, phoneID: phoneID, phoneTime: Self.rfc3339(date))
    }

    /// `2026-06-12T07:00:05Z`: RFC 3339 in UTC, whole seconds (rounded down).
    static func rfc3339(_ date: Date) -> String {
        Date(timeIntervalSince1970: date.timeIntervalSince1970.rounded(.down)).formatted(.iso8601)
    }

    /// Percent-encodes everything but RFC 3986 unreserved characters.
    static func percentEncoded(_ text: String) -> String {
        var out = ""
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
                UInt8(ascii: "~"):
                out.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                let hex = Array("0123456789ABCDEF".unicodeScalars)
                out += "%" + String(hex[Int(byte >> 4)]) + String(hex[Int(byte & 0xF)])
            }
        }
        return out
    }
}
