import FoundationEssentials
import Testing

@testable import BoardService

/// `aiden-board doctor`'s clock line, from the running daemon's `/v1/status`.
@Suite struct BoardDoctorClockTests {
    @Test(arguments: [
        (#"{"status":"ok","clock":{"source":"board","offset_seconds":0}}"#, "ok", "the board's own clock"),
        (
            #"{"status":"ok","clock":{"source":"phone","offset_seconds":1781247500}}"#, "info",
            "1781247500 s from the phone's): timestamps follow the phone's clock"
        ),
        (#"{"status":"ok","clock":{"source":"moon","offset_seconds":0}}"#, "info", "does not know"),
    ])
    func theLineSaysWhichClockStamps(body: String, severity: String, text: String) throws {
        let finding = try #require(BoardDoctor.clock(status: Data(body.utf8)))
        #expect(finding.severity.rawValue == severity)
        #expect(finding.message.contains(text), "\(finding.message)")
    }

    @Test(arguments: [nil, "", #"{"status":"ok"}"#, #"{"clock":{"source":7}}"#, "<html>"])
    func noLineWithoutAnAnswerThatNamesTheClock(body: String?) {
        #expect(BoardDoctor.clock(status: body.map { Data($0.utf8) }) == nil)
    }
}
