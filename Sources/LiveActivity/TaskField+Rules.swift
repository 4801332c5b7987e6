import Logging
import WireFormat

/// The value rules, applied both to decoded JSON and to values built in code (`validate()`).
extension TaskField {
    func check(_ value: String) throws(TaskValidationError) {
        switch textRule {
        case .identifier(let allowEmpty)?:
            try checkIdentifier(value, allowEmpty: allowEmpty)
        case .text(let maxLength, let required, let multiline)?:
            try checkText(value, maxLength: maxLength, required: required, multiline: multiline)
        case .languageTag?:
            guard LanguageTag.isValid(value) else {
                // A character no tag holds is named by its code point, never echoed (it may be a bidi control).
                if let stray = value.unicodeScalars.first(where: { !LanguageTag.isTagCharacter($0) }) {
                    throw error(LanguageTag.expectation + ", found \(Self.codePoint(stray))")
                }
                throw error(LanguageTag.expectation + ", got \(TaskValidationError.quoted(value))")
            }
        case nil:
            break
        }
    }

    private func checkIdentifier(_ value: String, allowEmpty: Bool) throws(TaskValidationError) {
        guard IdentifierRule.isValid(value, allowEmpty: allowEmpty) else {
            throw error(
                IdentifierRule.expectation(allowEmpty: allowEmpty) + ", got \(TaskValidationError.quoted(value))")
        }
    }

    private func checkText(
        _ value: String, maxLength: Int, required: Bool, multiline: Bool
    )
        throws(TaskValidationError)
    {
        let length = value.unicodeScalars.count
        if length > maxLength {
            throw error("must be at most \(maxLength) characters, got \(length)")
        }
        if required, value.unicodeScalars.allSatisfy(\.properties.isWhitespace) {
            throw error("must not be empty")
        }
        let allowed: Set<Unicode.Scalar> = multiline ? ["\t", "\n", "\r"] : []
        // C0, DEL and C1 (CSI, NEL, …) drive terminals and break lines; bidi controls reorder what a
        // person reads (the phone drops them, but not every reader of a task does).
        if let scalar = value.unicodeScalars.first(where: { ControlCharacter.isRefusedInText($0, allowed: allowed) }) {
            guard ControlCharacter(scalar) == .bidi else {
                throw error("must not contain control characters, found \(Self.codePoint(scalar))")
            }
            let name = scalar.properties.name.map { " (\($0))" } ?? ""
            throw error("must not contain bidi control characters, found \(Self.codePoint(scalar))\(name)")
        }
    }

    /// `U+202E`: at least four upper-case hex digits.
    private static func codePoint(_ scalar: Unicode.Scalar) -> String {
        let code = String(scalar.value, radix: 16, uppercase: true)
        return "U+" + String(repeating: "0", count: max(0, 4 - code.count)) + code
    }

    static func checkProgress(_ value: Double) throws(TaskValidationError) {
        guard value.isFinite, value >= 0, value <= 1 else {
            throw TaskField.progress.error(progressExpectation + ", got \(value)")
        }
    }

    static let progressExpectation = "must be a number between 0 and 1"

    func checkStatus(_ status: TaskStatus, allowed: [TaskStatus]) throws(TaskValidationError) {
        guard allowed.contains(status) else {
            let hint = status.isTerminal ? " (a task ends through end)" : ""
            throw error("must be one of \(Self.list(allowed)), got \"\(status.rawValue)\"\(hint)")
        }
    }

    static func list(_ statuses: [TaskStatus]) -> String {
        statuses.map(\.rawValue).joined(separator: ", ")
    }
}
