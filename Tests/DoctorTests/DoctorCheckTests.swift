import Doctor
import Foundation
import Testing

/// `doctor --json`: every check as an object (name, status, message, fix) and the overall result, with the exit
/// status the text output has.
@Suite struct DoctorCheckTests {
    @Test func everyCheckIsAnObjectAndTheWorstStatusIsTheResult() throws {
        let checks = [
            DoctorCheck("configuration", .ok("configuration /etc/aiden/board.toml is valid")),
            DoctorCheck("listen", .info("listening on 0.0.0.0:8080: every interface, access policy decides")),
            DoctorCheck("wake_transport", .problem("no adapter \"hci0\"\n", fix: "plug it in")),
        ]
        let text = DoctorCheck.json(checks)
        #expect(
            text == #"{"result":"problem","exit_status":1,"checks":["#
                + #"{"name":"configuration","status":"ok","message":"configuration /etc/aiden/board.toml is valid","fix":null},"#
                + #"{"name":"listen","status":"warning","message":"listening on 0.0.0.0:8080: every interface, access policy decides","fix":null},"#
                + #"{"name":"wake_transport","status":"problem","message":"no adapter \"hci0\"\n","fix":"plug it in"}]}"#
        )
        let object = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        #expect((object["checks"] as? [Any])?.count == 3)
    }

    @Test(arguments: [
        ([DoctorFinding.ok("a")], "ok", 0),
        ([.ok("a"), .info("b")], "warning", 0),
        ([.info("b"), .problem("c", fix: "d")], "problem", 1),
        ([], "ok", 0),
    ])
    func theResultAndExitStatusFollowTheWorstFinding(findings: [DoctorFinding], result: String, exit: Int32) {
        let text = DoctorCheck.json(DoctorCheck.named("x", findings))
        #expect(text.hasPrefix(#"{"result":"\#(result)","exit_status":\#(exit),"#))
        #expect(DoctorFinding.exitStatus(findings) == exit)
    }
}
