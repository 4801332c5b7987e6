import FoundationEssentials
import Testing
import WireFormat

@testable import PhoneCore

@Suite struct PhoneEventEncoderTests {
    /// 2026-06-12T07:00:05.250Z
    let now = Date(timeIntervalSince1970: 1_781_247_605.25)
    let encoder = PhoneEventEncoder()

    private func card(
        _ answer: CurrentAnswer?, link: LinkState = Fixtures.usbUp, problem: BoardProblem? = nil
    )
        -> PhoneEvent
    {
        .card(Card.derive(link: link, answer: answer, problem: problem))
    }

    static let cardGoldens: [String] = [
        #"{"at":"2026-06-12T07:00:05.250Z","can_stop":true,"current_action":"observe_screen","current_app":"","#
            + #""current_step":"Checking the current screen","current_target":"","event":"card","#
            + #""last_error":"","phase":"observing","progress":0.21,"request_id":"chat_1","revision":42,"#
            + #""shows_progress":true,"state":"running","status":"running","task_title":"Open Settings","#
            + #""updated_at":"2026-06-12T07:00:02Z"}"#
    ]

    @Test func goldenLines() {
        let table: [(PhoneEvent, String)] = [
            (card(.notFound), #"{"at":"2026-06-12T07:00:05.250Z","event":"card","state":"standby"}"#),
            (
                card(nil, problem: .forbidden(message: nil)),
                #"{"at":"2026-06-12T07:00:05.250Z","event":"card","problem":"board answered 403 (forbidden): "#
                    + #"this host is not on the board's USB link","problem_kind":"forbidden","state":"disconnected"}"#
            ),
            (
                card(.snapshot(SnapshotView(requestID: "chat_9", status: .known(.completed), taskTitle: "Copy a/b"))),
                #"{"at":"2026-06-12T07:00:05.250Z","event":"card","request_id":"chat_9","state":"completed","#
                    + #""status":"completed","task_title":"Copy a/b"}"#
            ),
            (
                .alert(Alert(transition: .connected, connectionID: "usb-7")),
                #"{"at":"2026-06-12T07:00:05.250Z","connection_id":"usb-7","event":"alert","transition":"connected"}"#
            ),
            (
                .alert(
                    Alert(
                        transition: .foregroundRecovery, requestID: "chat_1", epoch: 1234, eventID: 43,
                        boardTime: "2026-06-12T07:00:02Z")),
                #"{"at":"2026-06-12T07:00:05.250Z","board_at":"2026-06-12T07:00:02Z","epoch":1234,"event":"alert","#
                    + #""event_id":43,"request_id":"chat_1","transition":"foreground_recovery"}"#
            ),
            (
                .alert(
                    Alert(
                        transition: .handoff, requestID: "chat_1", epoch: 1234, eventID: 44,
                        boardTime: "2026-06-12T07:00:03Z", title: "Open Settings", step: "Enter the Wi-Fi password",
                        action: "request_user_input")),
                #"{"action":"request_user_input","at":"2026-06-12T07:00:05.250Z","board_at":"2026-06-12T07:00:03Z","#
                    + #""epoch":1234,"event":"alert","event_id":44,"request_id":"chat_1","#
                    + #""step":"Enter the Wi-Fi password","title":"Open Settings","transition":"handoff"}"#
            ),
            (
                .alert(
                    Alert(
                        transition: .failed, requestID: "chat_1", epoch: 1234, eventID: 45, title: "Open Settings",
                        error: "the network refused the password")),
                #"{"at":"2026-06-12T07:00:05.250Z","epoch":1234,"error":"the network refused the password","#
                    + #""event":"alert","event_id":45,"request_id":"chat_1","title":"Open Settings","transition":"failed"}"#
            ),
            (
                .connection(LinkState(usb: .up, wake: .connecting, connectionID: "usb-7")),
                #"{"at":"2026-06-12T07:00:05.250Z","connection_id":"usb-7","event":"connection","usb":"up","#
                    + #""wake":"connecting"}"#
            ),
            (
                .connection(Fixtures.loopback),
                #"{"at":"2026-06-12T07:00:05.250Z","event":"connection","usb":"unmonitored","wake":"connected"}"#
            ),
            (
                .wake(
                    WakeNotice(
                        version: 1, reason: "live_activity", epoch: 1234, sequence: 88,
                        verdict: .next(missed: 2))),
                #"{"at":"2026-06-12T07:00:05.250Z","epoch":1234,"event":"wake","missed":2,"reason":"live_activity","#
                    + #""seq":88,"verdict":"new","version":1}"#
            ),
            (
                .wake(WakeNotice(version: 1, reason: "system", epoch: 9, sequence: 0, verdict: .newEpoch(previous: 8))),
                #"{"at":"2026-06-12T07:00:05.250Z","epoch":9,"event":"wake","reason":"system","seq":0,"#
                    + #""verdict":"new_epoch","version":1}"#
            ),
            (
                .wake(
                    WakeNotice(
                        version: 2, reason: "unrecognized_9", epoch: 9, sequence: UInt64.max,
                        verdict: .duplicate)),
                #"{"at":"2026-06-12T07:00:05.250Z","epoch":9,"event":"wake","reason":"unrecognized_9","#
                    + #""seq":18446744073709551615,"verdict":"duplicate","version":2}"#
            ),
            (
                .problem(.unreachable(detail: "connect to 192.168.42.1:8080: refused")),
                #"{"at":"2026-06-12T07:00:05.250Z","event":"error","kind":"unreachable","#
                    + #""message":"board unreachable: connect to 192.168.42.1:8080: refused"}"#
            ),
            (
                .eventsMissed,
                #"{"at":"2026-06-12T07:00:05.250Z","event":"error","kind":"events_missed","#
                    + #""message":"the board's event ring overflowed: some transitions were missed"}"#
            ),
            (
                .error(kind: nil, message: "line 1\n\"quoted\" ü"),
                #"{"at":"2026-06-12T07:00:05.250Z","event":"error","message":"line 1\n\"quoted\" ü"}"#
            ),
        ]
        for (event, golden) in table {
            #expect(encoder.line(for: event, at: now) == golden)
        }
    }

    @Test func aCardLineCarriesTheSnapshotFieldsItShows() {
        #expect(encoder.line(for: card(.snapshot(Fixtures.running)), at: now) == Self.cardGoldens[0])
    }

    @Test func everyCardStateIsNamedAsInTheContract() throws {
        let names = CardState.allCases.map(\.rawValue)
        #expect(
            names == [
                "standby", "running", "needs_app", "handoff", "completed", "failed", "canceled", "disconnected",
            ])
        let line = encoder.line(for: card(.snapshot(Fixtures.handoff)), at: now)
        #expect(line.contains(#""state":"handoff""#))
        #expect(line.contains(#""current_action":"request_user_input""#))
    }

    @Test func aNonFiniteNumberEncodesAsNullRatherThanFailing() {
        var snapshot = Fixtures.running
        snapshot.progress = .nan
        let line = encoder.line(for: card(.snapshot(snapshot)), at: now)
        #expect(line.contains(#""progress":null"#))
    }

    @Test(arguments: [
        (0.0, "1970-01-01T00:00:00.000Z"),
        (1_781_247_600.123, "2026-06-12T07:00:00.123Z"),
        (1_781_247_600.9996, "2026-06-12T07:00:01.000Z"),
        (-0.5, "1969-12-31T23:59:59.500Z"),
    ])
    func timestampsAreUTCWithMilliseconds(seconds: Double, text: String) {
        #expect(UTCTimestamp.format(Date(timeIntervalSince1970: seconds)) == text)
    }

    /// The board's words are in `--json` as sent, yet the line cannot drive a terminal it is printed on:
    /// DEL, C1, separators and format characters are `\u` escapes like the C0 ones, and read back the same.
    @Test func controlCharactersAreEscapedAndReadBackAsSent() throws {
        let title = "pay\u{202E}lanoitan \u{9B}2J\u{7F}\u{2028}\u{1B}[31m\u{E0041}👨\u{200D}👩 é"
        let line = encoder.line(
            for: .alert(Alert(transition: .completed, requestID: "chat_1", epoch: 1, title: title)), at: now)
        #expect(
            line.contains(
                #""title":"pay\u202elanoitan \u009b2J\u007f\u2028\u001b[31m\udb40\udc41👨\u200d👩 é""#))
        #expect(!line.unicodeScalars.contains { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) })
        let object = try JSONDecoder().decode([String: JSONValue].self, from: Data(line.utf8))
        #expect(object["title"] == .string(title))
    }
}
