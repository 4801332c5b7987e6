import FoundationEssentials
import Testing

@testable import WakeProtocol

@Suite struct WakeStateTests {
    @Test func encodesWithSnakeCaseKeys() throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let data = try encoder.encode(WakeState(epoch: 4660, sequenceHighWater: 2048))
        #expect(String(decoding: data, as: UTF8.self) == #"{"epoch":4660,"sequence_high_water":2048}"#)
    }

    @Test func decodesTheFullUInt64Range() throws {
        let json = #"{"epoch":65535,"sequence_high_water":18446744073709551615}"#
        let state = try JSONDecoder().decode(WakeState.self, from: Data(json.utf8))
        #expect(state == WakeState(epoch: 65535, sequenceHighWater: UInt64.max))
    }

    @Test func ignoresUnknownKeys() throws {
        let json = #"{"epoch":1,"sequence_high_water":5,"note":"later versions may add fields"}"#
        let state = try JSONDecoder().decode(WakeState.self, from: Data(json.utf8))
        #expect(state == WakeState(epoch: 1, sequenceHighWater: 5))
    }

    @Test(arguments: [
        #"{"epoch":0,"sequence_high_water":5}"#,
        #"{"epoch":70000,"sequence_high_water":5}"#,
        #"{"epoch":1,"sequence_high_water":-1}"#,
        #"{"epoch":1}"#,
        #"{"sequence_high_water":5}"#,
        "",
    ])
    func rejectsInvalidRecords(json: String) {
        #expect(throws: (any Error).self) { try JSONDecoder().decode(WakeState.self, from: Data(json.utf8)) }
    }

    @Test func zeroEpochErrorNamesTheField() {
        do {
            _ = try JSONDecoder().decode(WakeState.self, from: Data(#"{"epoch":0,"sequence_high_water":5}"#.utf8))
            Issue.record("epoch 0 was accepted")
        } catch {
            #expect(String(describing: error).contains("epoch must be nonzero"))
        }
    }

    @Test func freshStateHasANewEpochAndNothingSent() {
        var generator = SplitMix64(seed: 3)
        let state = WakeState.fresh(using: &generator)
        #expect(state.epoch != 0)
        #expect(state.sequenceHighWater == 0)
    }

    /// What a wake.json that no longer decodes still says about its epoch: enough to keep a fresh one apart.
    @Test(
        arguments: [
            (#"{"epoch":0,"sequence_high_water":5}"#, nil),
            (#"{"epoch":4660,"sequence_high_water":"x"}"#, 4660),
            (#"{"epoch" : 4660 , "sequence_high_water":2048"#, 4660),
            (#"{"sequence_high_water":1,"epoch":17}"#, 17),
            (#"{"epoch":70000}"#, nil),
            (#"{"epoch":"4660"}"#, nil),
            (#"{"epoch":4660"#, 4660),
            (#"{"epo"#, nil),
            ("", nil),
            (#"{"old_epoch":1,"epoch":9}"#, 9),
        ] as [(String, UInt16?)])
    func anEpochIsReadFromBytesThatDoNotDecode(text: String, epoch: UInt16?) {
        #expect(WakeState.epochNamed(in: Array(text.utf8)) == epoch, "\(text)")
    }
}
