/// What the board persists for the Wake protocol (CONTRACT.md §6), as JSON in its state
/// directory: `{"epoch":4660,"sequence_high_water":2048}`.
///
/// `sequenceHighWater` is a reservation, not the last sequence sent: every sequence the board
/// may ever have sent is at or below it, so a restarted board continues above it.
package struct WakeState: Codable, Equatable, Hashable, Sendable {
    /// Nonzero; decoding rejects 0.
    package var epoch: UInt16
    package var sequenceHighWater: UInt64

    package init(epoch: UInt16, sequenceHighWater: UInt64) {
        self.epoch = epoch
        self.sequenceHighWater = sequenceHighWater
    }

    /// The state of a new state directory: a new epoch, nothing sent yet.
    package static func fresh(using generator: inout some RandomNumberGenerator) -> WakeState {
        WakeState(epoch: BoardEpoch.generate(using: &generator), sequenceHighWater: 0)
    }

    private enum CodingKeys: String, CodingKey {
        case epoch
        case sequenceHighWater = "sequence_high_water"
    }

    package init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let epoch = try container.decode(UInt16.self, forKey: .epoch)
        guard epoch != 0 else {
            throw DecodingError.dataCorruptedError(
                forKey: .epoch, in: container, debugDescription: "epoch must be nonzero")
        }
        self.epoch = epoch
        self.sequenceHighWater = try container.decode(UInt64.self, forKey: .sequenceHighWater)
    }
}
