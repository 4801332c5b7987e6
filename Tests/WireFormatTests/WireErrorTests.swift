import FoundationEssentials
import Testing
import WireFormat

/// The refusal body both readers take, and the envelope's member names as the protocol spells them.
@Suite struct WireErrorTests {
    private func read(_ json: String) throws -> WireError? {
        try JSONDecoder().decode(ErrorAnswer.self, from: Data(json.utf8)).error
    }

    @Test func aRefusalIsReadMemberByMember() throws {
        let full = #"{"status":"error","error":{"code":"invalid","message":"must be a number","field":"progress"}}"#
        #expect(try read(full) == WireError(code: "invalid", message: "must be a number", field: "progress"))
        // A member of the wrong type reads as absent; the others are still read.
        #expect(try read(#"{"status":"error","error":{"code":5,"message":"no"}}"#) == WireError(message: "no"))
        #expect(try read(#"{"status":"error","error":{}}"#) == WireError())
        // No error member, or one that is no object: nothing to read, and no failure.
        #expect(try read(#"{"status":"error"}"#) == nil)
        #expect(try read(#"{"status":"error","error":"boom"}"#) == nil)
    }

    @Test func theEnvelopesMembersAreTheProtocolsNames() {
        #expect(
            EnvelopeKey.allCases.map(\.rawValue) == [
                "status", "live_activity", "tasks", "error", "pairing", "app_state", "ok", "answer", "task", "for",
                "outcome", "epoch", "generation", "events", "next", "truncated", "reset_required",
            ])
        let members: [String: Int] = ["live_activity": 1, "reset_required": 2]
        #expect(members[.liveActivity] == 1 && members[.resetRequired] == 2 && members[.tasks] == nil)
    }
}
