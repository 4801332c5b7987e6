import FoundationEssentials
import Testing
import WireFormat

/// The `pairing` member of a 200 answer and the outcome it reports: only an open window with its seconds, or
/// a kept bond, is an answer to a pairing request.
@Suite struct PairingOutcomeTests {
    private func read(_ json: String) throws -> PairingOutcome? {
        PairingOutcome(try JSONDecoder().decode(PairingWindowBody.self, from: Data(json.utf8)))
    }

    @Test func anOpenWindowAndAKeptBondAreRead() throws {
        #expect(
            try read(#"{"open":true,"closes_at":"2026-12-06T14:00:00Z","seconds":120}"#)
                == .open(closesIn: .seconds(120)))
        #expect(try read(#"{"open":false,"bonded":true}"#) == .bondKept)
        #expect(try read(#"{"open":true,"seconds":0,"bonded":true}"#) == .open(closesIn: .zero), "open decides")
    }

    @Test func aWindowNeitherOpenNorKeptIsNoAnswer() throws {
        #expect(try read(#"{"open":false}"#) == nil)
        #expect(try read(#"{"open":false,"bonded":false}"#) == nil)
        #expect(try read(#"{"open":true}"#) == nil, "an open window says for how long")
        #expect(try read(#"{"open":true,"seconds":-1}"#) == nil)
        #expect(throws: DecodingError.self) { try read(#"{"seconds":120}"#) }
        #expect(
            try read(#"{"open":true,"closes_at":5,"seconds":120}"#) == .open(closesIn: .seconds(120)),
            "closes_at unread")
        #expect(try read(#"{"open":true,"seconds":"120"}"#) == nil, "seconds of the wrong type is not said")
    }

    @Test func absentMembersAreLeftOut() throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let kept = try encoder.encode(PairingWindowBody(open: false, bonded: true))
        #expect(String(decoding: kept, as: UTF8.self) == #"{"bonded":true,"open":false}"#)
        let open = try encoder.encode(PairingWindowBody(open: true, closesAt: "2026-12-06T14:00:00Z", seconds: 120))
        #expect(
            String(decoding: open, as: UTF8.self) == #"{"closes_at":"2026-12-06T14:00:00Z","open":true,"seconds":120}"#)
    }
}
