import Configuration
import FoundationEssentials

/// The configuration files: bytes as `ConfigurationFile` reads them (UTF-8 or refused), the TOML subset,
/// then the board's and the phone's configuration on the same text.
///
/// Beyond not crashing: a parsed document written back re-parses to the same document and the same
/// configurations (they depend on what the file says, not how); every error names a line inside the file.
package enum TOMLHarness: FuzzHarness {
    package static let name = "toml"

    package static func run(_ input: [UInt8]) throws(InvariantViolation) -> FuzzVerdict {
        guard let text = String(validating: input, as: UTF8.self) else { return .rejected }
        let lineCount = text.utf8.count(where: { $0 == UInt8(ascii: "\n") }) + 1
        let document: TOMLDocument
        do {
            document = try TOMLDocument(parsing: text, file: "fuzz.toml")
        } catch {
            try check(error, lineCount: lineCount)
            return .rejected
        }
        let written = TOMLWriter.text(of: document)
        let reparsed: TOMLDocument
        do {
            reparsed = try TOMLDocument(parsing: written, file: "fuzz.toml")
        } catch {
            throw InvariantViolation("the document written back does not parse: \(error)\n\(written)")
        }
        try require(
            TOMLWriter.text(of: reparsed) == written && reparsed.tables.map(\.name) == document.tables.map(\.name),
            "the document written back parses to another document:\n\(written)")
        let boardResult = board(text)
        let phoneResult = phone(text)
        for failure in [boardResult.failure, phoneResult.failure].compactMap(\.self) {
            try check(failure, lineCount: lineCount)
        }
        try require(
            sameOutcome(boardResult, board(written)),
            "the board configuration changed when the file was written back:\n\(written)")
        try require(
            sameOutcome(phoneResult, phone(written)),
            "the phone configuration changed when the file was written back:\n\(written)")
        switch (boardResult, phoneResult) {
        case (.success, _), (_, .success): return .accepted
        default: return .rejected
        }
    }

    private static func board(_ text: String) -> Result<BoardConfiguration, ConfigurationError> {
        Result { () throws(ConfigurationError) in try BoardConfiguration.parse(text, file: "fuzz.toml") }
    }

    private static func phone(_ text: String) -> Result<PhoneConfiguration, ConfigurationError> {
        Result { () throws(ConfigurationError) in try PhoneConfiguration.parse(text, file: "fuzz.toml") }
    }

    /// Success with equal values, or failure of the same kind on the same key (lines move when written back).
    private static func sameOutcome<Value: Equatable>(
        _ first: Result<Value, ConfigurationError>, _ second: Result<Value, ConfigurationError>
    ) -> Bool {
        switch (first, second) {
        case let (.success(a), .success(b)): return a == b
        case let (.failure(a), .failure(b)): return a.kind == b.kind && a.key == b.key
        default: return false
        }
    }

    private static func check(_ error: ConfigurationError, lineCount: Int) throws(InvariantViolation) {
        try require(!error.message.isEmpty, "an error without a message: \(error)")
        if let line = error.line {
            try require((1...lineCount).contains(line), "error on line \(line) of a \(lineCount)-line file: \(error)")
        }
    }
}

extension Result {
    var failure: Failure? {
        if case let .failure(error) = self { return error }
        return nil
    }
}
