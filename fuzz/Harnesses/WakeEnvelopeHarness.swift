import FoundationEssentials
import PhoneCore
import WakeProtocol

/// The BLE Wake as the phone receives it: a stream of characteristic values (or loopback datagrams), each
/// decoded as a `WakeEnvelope` and handed to the phone's session, whose `WakeFilter` decides what is new.
///
/// The input is a series of values, each a length byte (its low 5 bits: 0...31) and that many bytes.
/// Beyond not crashing: a value decodes exactly when it is 12 bytes and encodes back to the same bytes; the
/// session drops every other length and says so; its verdict on each Wake is docs/protocol.md §2.5's (a duplicate only
/// when it repeats a nonzero epoch's last sequence); the filter's counters add up.
package enum WakeEnvelopeHarness: FuzzHarness {
    package static let name = "wake-envelope"

    package static func run(_ input: [UInt8]) throws(InvariantViolation) -> FuzzVerdict {
        var session = PhoneSession(settings: PhoneSession.Settings(phoneID: "fuzz"))
        _ = session.handle(.started, at: .zero)
        var last: (epoch: UInt16, sequence: UInt64)?
        var wellFormed: UInt64 = 0
        var malformed: UInt64 = 0
        var index = 0
        var time = Duration.zero
        while index < input.count {
            let length = Int(input[index] & 0x1F)
            let value = Array(input[(index + 1)..<min(input.count, index + 1 + length)])
            index += 1 + length
            time += .milliseconds(100)
            let effects = session.handle(.wakeValue(value, fullLength: value.count), at: time)
            let notices = effects.compactMap { effect -> WakeNotice? in
                if case let .emit(.wake(notice)) = effect { return notice }
                return nil
            }
            guard let envelope = try? WakeEnvelope(bytes: value) else {
                try require(value.count != WakeEnvelope.byteCount, "a 12-byte value did not decode: \(value)")
                malformed += 1
                try require(notices.isEmpty, "a \(value.count)-byte value was taken for a Wake")
                try require(
                    session.counters.malformedWakes == malformed, "a \(value.count)-byte value was not counted")
                continue
            }
            wellFormed += 1
            try checkEncoding(envelope, value)
            let expected: WakeFilter.Verdict
            if let last, last.epoch == envelope.epoch {
                expected =
                    envelope.sequence > last.sequence
                    ? .next(missed: envelope.sequence - last.sequence - 1)
                    : envelope.sequence < last.sequence
                        ? .restarted(previous: last.sequence) : envelope.epoch == 0 ? .repeated : .duplicate
            } else {
                expected = .newEpoch(previous: last?.epoch)
            }
            try require(
                notices.map(\.verdict) == [expected], "\(envelope) after \(String(describing: last)): \(notices)")
            if expected.isNew { last = (envelope.epoch, envelope.sequence) }
        }
        let counters = session.filter.counters
        try require(
            counters.received == wellFormed && counters.accepted + counters.duplicates == counters.received,
            "filter counters \(counters) after \(wellFormed) Wakes")
        return malformed == 0 ? .accepted : .rejected
    }

    private static func checkEncoding(_ envelope: WakeEnvelope, _ value: [UInt8]) throws(InvariantViolation) {
        try require(envelope.bytes == value, "\(envelope) encodes as \(envelope.bytes), was \(value)")
        try require(
            envelope.version == value[0] && envelope.reason.byte == value[1]
                && envelope.isKnownVersion == (value[0] == WakeEnvelope.currentVersion),
            "\(envelope) from \(value)")
        try require(
            WakeReason(name: envelope.reason.name) == envelope.reason,
            "reason \(envelope.reason.name) does not read back")
    }
}
