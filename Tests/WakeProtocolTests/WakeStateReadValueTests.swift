import Testing

@testable import WakeProtocol

@Suite struct WakeStateReadValueTests {
    @Test func beforeTheFirstWakeReadValueIsASystemEnvelopeAtThePersistedMark() {
        let envelope = WakeState(epoch: 0x1234, sequenceHighWater: 2048).readValueBeforeFirstWake
        #expect(envelope == WakeEnvelope(reason: .system, epoch: 0x1234, sequence: 2048))
        #expect(envelope.bytes == [1, 3, 0x34, 0x12, 0x00, 0x08, 0, 0, 0, 0, 0, 0])
    }
}
