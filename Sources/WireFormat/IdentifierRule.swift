/// The request-id alphabet: 1 to 128 characters from `A-Z a-z 0-9 . _ : -`. The board holds every
/// `request_id` and `phone_id` an agent sends to it (and every one in a query) to this rule, and the phone
/// holds every request id the board sends back to it, so an id is safe in a URL path, a query string, a
/// file name, a log line and on a terminal without escaping, whichever side it came from.
package enum IdentifierRule {
    package static let maxLength = 128

    /// `A-Z a-z 0-9 . _ : -`.
    package static func allows(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar {
        case "A"..."Z", "a"..."z", "0"..."9", ".", "_", ":", "-": true
        default: false
        }
    }

    /// Whether `text` meets the rule; `allowEmpty` for a `phone_id`, whose empty value means "any phone".
    package static func isValid(_ text: String, allowEmpty: Bool = false) -> Bool {
        let length = text.unicodeScalars.count
        return (allowEmpty || length > 0) && length <= maxLength && text.unicodeScalars.allSatisfy(allows)
    }

    /// What an error says the value must be: `must be 1 to 128 characters from A-Z a-z 0-9 . _ : -`.
    package static func expectation(allowEmpty: Bool = false) -> String {
        "must be \(allowEmpty ? "at most" : "1 to") \(maxLength) characters from A-Z a-z 0-9 . _ : -"
    }
}
