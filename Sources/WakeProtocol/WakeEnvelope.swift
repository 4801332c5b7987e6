/// The 12-byte value of the BLE Wake characteristic (docs/protocol.md §2.2), little-endian:
///
///     byte 0      version (1)
///     byte 1      reason
///     bytes 2-3   board epoch, UInt16
///     bytes 4-11  wake sequence, UInt64
///
/// A Wake is a hint, never data: a receiver fetches on every new Wake, even one whose version
/// or reason it does not know. Decoding therefore accepts any version and reason and only
/// rejects a value of the wrong length, where the fields cannot be found at all.
package struct WakeEnvelope: Hashable, Sendable, CustomStringConvertible {
    package static let byteCount = 12
    package static let currentVersion: UInt8 = 1

    /// The protocol version byte. Fields after byte 0 are read with the version-1 layout; they
    /// are only trustworthy when `isKnownVersion`.
    package var version: UInt8
    package var reason: WakeReason
    /// The board's epoch; 0 from boards that do not set it (Aiden firmware leaves it zero).
    package var epoch: UInt16
    package var sequence: UInt64

    /// An envelope of the current version, as the board sends it.
    package init(reason: WakeReason, epoch: UInt16, sequence: UInt64) {
        self.init(version: WakeEnvelope.currentVersion, reason: reason, epoch: epoch, sequence: sequence)
    }

    /// An envelope with an explicit version byte, for tests and tools that speak to other versions.
    package init(version: UInt8, reason: WakeReason, epoch: UInt16, sequence: UInt64) {
        self.version = version
        self.reason = reason
        self.epoch = epoch
        self.sequence = sequence
    }

    /// Reads an envelope; throws only when the length is not exactly `byteCount`.
    package init(bytes: some Collection<UInt8>) throws(WakeEnvelopeError) {
        guard bytes.count == WakeEnvelope.byteCount else { throw .wrongLength(bytes.count) }
        let b = Array(bytes)
        var epoch: UInt16 = 0
        for index in (2...3).reversed() { epoch = epoch << 8 | UInt16(b[index]) }
        var sequence: UInt64 = 0
        for index in (4...11).reversed() { sequence = sequence << 8 | UInt64(b[index]) }
        self.init(version: b[0], reason: WakeReason(byte: b[1]), epoch: epoch, sequence: sequence)
    }

    /// The 12 wire bytes.
    package var bytes: [UInt8] {
        var out: [UInt8] = [version, reason.byte]
        out.reserveCapacity(WakeEnvelope.byteCount)
        for shift in stride(from: 0, to: 16, by: 8) { out.append(UInt8(truncatingIfNeeded: epoch >> shift)) }
        for shift in stride(from: 0, to: 64, by: 8) { out.append(UInt8(truncatingIfNeeded: sequence >> shift)) }
        return out
    }

    /// Whether this implementation knows the version's layout.
    package var isKnownVersion: Bool { version == WakeEnvelope.currentVersion }

    package var description: String {
        "Wake(v\(version) \(reason.name) epoch=\(epoch) seq=\(sequence))"
    }
}
