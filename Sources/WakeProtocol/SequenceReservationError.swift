/// Why no further wake sequence can be issued in this epoch.
package enum SequenceReservationError: Error, Equatable, Sendable, CustomStringConvertible {
    /// Every UInt64 sequence has been used; a new board epoch is needed.
    case exhausted(epochHighWater: UInt64)

    package var description: String {
        switch self {
        case .exhausted(let mark):
            "wake sequence exhausted at \(mark) in this epoch; a new board epoch must be created"
        }
    }
}
