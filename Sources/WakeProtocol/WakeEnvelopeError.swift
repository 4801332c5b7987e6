/// Why bytes could not be read as a Wake envelope.
package enum WakeEnvelopeError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The value did not have exactly `WakeEnvelope.byteCount` bytes; carries the length seen.
    case wrongLength(Int)

    package var description: String {
        switch self {
        case .wrongLength(let count):
            "Wake value has \(count) bytes; a Wake envelope is exactly \(WakeEnvelope.byteCount) bytes"
        }
    }
}
