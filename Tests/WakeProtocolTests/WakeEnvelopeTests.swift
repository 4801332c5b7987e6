import Testing

@testable import WakeProtocol

@Suite struct WakeEnvelopeTests {
    /// Hand-written wire bytes: version, reason, epoch LE, sequence LE.
    @Test(arguments: [
        (
            WakeEnvelope(reason: .liveActivity, epoch: 0x1234, sequence: 42),
            [0x01, 0x04, 0x34, 0x12, 0x2A, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00] as [UInt8]
        ),
        (
            WakeEnvelope(reason: .system, epoch: 0xBEEF, sequence: 0x0102_0304_0506_0708),
            [0x01, 0x03, 0xEF, 0xBE, 0x08, 0x07, 0x06, 0x05, 0x04, 0x03, 0x02, 0x01]
        ),
        (
            WakeEnvelope(reason: .usbReenumeration, epoch: 0xFFFF, sequence: UInt64.max),
            [0x01, 0x05, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF]
        ),
        (
            WakeEnvelope(reason: .unknown, epoch: 1, sequence: 0x100),
            [0x01, 0x00, 0x01, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00]
        ),
    ])
    func encodesAndDecodesGoldenBytes(envelope: WakeEnvelope, golden: [UInt8]) throws {
        #expect(envelope.bytes == golden)
        #expect(envelope.bytes.count == WakeEnvelope.byteCount)
        let decoded = try WakeEnvelope(bytes: golden)
        #expect(decoded == envelope)
        #expect(decoded.isKnownVersion)
    }

    @Test func decodesFromASliceThatDoesNotStartAtZero() throws {
        let buffer: [UInt8] = [0xAA, 0x01, 0x04, 0x02, 0x00, 0x07, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0xBB]
        let envelope = try WakeEnvelope(bytes: buffer[1..<13])
        #expect(envelope == WakeEnvelope(reason: .liveActivity, epoch: 2, sequence: 7))
    }

    @Test(arguments: [0, 1, 11, 13, 20])
    func rejectsWrongLengths(count: Int) {
        let bytes = [UInt8](repeating: 0x01, count: count)
        #expect(throws: WakeEnvelopeError.wrongLength(count)) { try WakeEnvelope(bytes: bytes) }
    }

    @Test func wrongLengthErrorNamesBothLengths() {
        let text = WakeEnvelopeError.wrongLength(11).description
        #expect(text.contains("11 bytes"))
        #expect(text.contains("exactly 12 bytes"))
    }

    /// A newer board must still wake an older receiver: the value decodes, flagged unknown.
    @Test func unknownVersionStillDecodes() throws {
        let golden: [UInt8] = [0x02, 0x04, 0x34, 0x12, 0x05, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00]
        let envelope = try WakeEnvelope(bytes: golden)
        #expect(envelope.version == 2)
        #expect(!envelope.isKnownVersion)
        #expect(envelope.epoch == 0x1234)
        #expect(envelope.sequence == 5)
        #expect(envelope.bytes == golden)
    }

    @Test func unrecognizedReasonKeepsItsByte() throws {
        let golden: [UInt8] = [0x01, 0x7F, 0x01, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00]
        let envelope = try WakeEnvelope(bytes: golden)
        #expect(envelope.reason == .unrecognized(0x7F))
        #expect(!envelope.reason.isRecognized)
        #expect(envelope.isKnownVersion)
        #expect(envelope.bytes == golden)
    }

    /// Aiden firmware leaves the epoch bytes zero; such Wakes must decode too.
    @Test func zeroEpochFromAidenFirmwareDecodes() throws {
        let envelope = try WakeEnvelope(bytes: [0x01, 0x01, 0, 0, 0x09, 0, 0, 0, 0, 0, 0, 0])
        #expect(envelope == WakeEnvelope(reason: .phoneBridge, epoch: 0, sequence: 9))
    }

    @Test func everyKnownReasonRoundTrips() throws {
        for reason in WakeReason.known {
            let envelope = WakeEnvelope(reason: reason, epoch: 0xA1DE, sequence: 0xDEAD_BEEF_0000_0001)
            #expect(envelope.bytes[1] == reason.byte)
            #expect(try WakeEnvelope(bytes: envelope.bytes) == envelope)
        }
    }

    @Test func descriptionIsReadableInLogs() {
        let envelope = WakeEnvelope(reason: .liveActivity, epoch: 7, sequence: 42)
        #expect(envelope.description == "Wake(v1 live_activity epoch=7 seq=42)")
    }
}
