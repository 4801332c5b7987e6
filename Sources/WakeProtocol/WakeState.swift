/// What the board persists for the Wake protocol (docs/protocol.md §7.1), as JSON in its state
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

    /// The state of a new state directory: a new epoch, nothing sent yet. `previous`: the epochs the directory
    /// held before (phones may still hold them), which the new one must not repeat.
    package static func fresh(
        excluding previous: Set<UInt16> = [], using generator: inout some RandomNumberGenerator
    )
        -> WakeState
    {
        WakeState(epoch: BoardEpoch.generate(excluding: previous, using: &generator), sequenceHighWater: 0)
    }

    /// The epoch a `wake.json` that no longer decodes still names, if any: the first `"epoch"` member followed by
    /// a nonzero number that fits, read from the bytes as they are (a torn or hand-edited file is not JSON).
    /// Only for keeping a fresh epoch apart from it; never trusted as the board's epoch.
    package static func epochNamed(in bytes: [UInt8]) -> UInt16? {
        let key = Array(#""epoch""#.utf8)
        var index = 0
        while index + key.count <= bytes.count {
            defer { index += 1 }
            guard bytes[index..<index + key.count].elementsEqual(key) else { continue }
            var cursor = index + key.count
            func skipSpaces() {
                while cursor < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[cursor]) { cursor += 1 }
            }
            skipSpaces()
            guard cursor < bytes.count, bytes[cursor] == UInt8(ascii: ":") else { continue }
            cursor += 1
            skipSpaces()
            let digits = bytes[cursor...].prefix { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }
            guard let value = UInt16(String(decoding: digits, as: UTF8.self)), value != 0 else { continue }
            return value
        }
        return nil
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
