/// One parser that takes input from outside (the air, the bus, the network, a file), driven by fuzz inputs.
///
/// `run` feeds one input through the parser the way the daemon does and checks what must hold beyond "it did
/// not crash": round trips, re-parses, valid JSON out. A broken invariant is thrown; the libFuzzer entry turns
/// it into a crash (so libFuzzer keeps the input), the corpus tests into a failed expectation.
package protocol FuzzHarness: Sendable {
    /// `fuzz-<name>` is the executable, `fuzz/corpus/<name>/` the seeds, `fuzz/crashes/<name>/` the inputs
    /// that once crashed it.
    static var name: String { get }

    /// Whether the parser took the input; seeds are real inputs, so each must be accepted.
    static func run(_ input: [UInt8]) throws(InvariantViolation) -> FuzzVerdict
}

/// What a parser made of one input.
package enum FuzzVerdict: Sendable, Equatable {
    /// Parsed (for inputs of several parts: every part).
    case accepted
    /// Refused with an error, as hostile input should be.
    case rejected
}

/// An invariant that did not hold for one input.
package struct InvariantViolation: Error, Equatable, CustomStringConvertible {
    package let message: String

    package init(_ message: String) {
        self.message = message
    }

    package var description: String { message }
}

/// Throws `message` unless `condition` holds.
func require(_ condition: Bool, _ message: @autoclosure () -> String) throws(InvariantViolation) {
    guard condition else { throw InvariantViolation(message()) }
}

/// Every harness, in the order scripts/fuzz runs them.
package let fuzzHarnesses: [any FuzzHarness.Type] = [
    WakeEnvelopeHarness.self, TOMLHarness.self, AgentAPIHarness.self, PhoneAPIHarness.self, DBusMessageHarness.self,
    PhoneAnswersHarness.self, HTTPRequestHarness.self, HTTPResponseHarness.self,
]
