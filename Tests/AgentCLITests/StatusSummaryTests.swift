import FoundationEssentials
import Testing
import WireFormat

@testable import AgentCLI

/// `aidenctl status`: the board's `/v1/status` in a few lines, problems first.
@Suite struct StatusSummaryTests {
    private func value(_ json: String) throws -> JSONValue {
        try JSONDecoder().decode(JSONValue.self, from: Data(json.utf8))
    }

    /// A real answer (a loopback board with a task running and one ended).
    @Test func aHealthyBoardInAFewLines() throws {
        let status = try value(
            #"{"bluetooth":{"adapter":"hci0","advertising":false,"bluez_running":null,"gatt_registered":false,"problem":null,"wake_subscriber":false},"epoch":2345,"instance_id":"2942c7a503472a19","live_activity":{"enabled":true,"retention_seconds":600},"phone_app":null,"status":"ok","tasks":{"active":1,"store_revision":4,"total":2},"uptime_seconds":2,"usb":{"interface":null,"link":"unknown"},"version":"0.1.0","wake":{"coalesced_changes":3,"last_at":"2026-12-01T15:22:23.722Z","last_reason":"live_activity","last_seq":3,"send_failures":0,"sent":3,"transport":"loopback"}}"#
        )
        #expect(
            StatusSummary.text(status) == """
                ● aiden-board: running
                     Board: aiden-board 0.1.0, up 2 s, epoch 2345, instance 2942c7a503472a19
                     Tasks: 1 active, 1 ended
                      Wake: loopback, last #3 (live_activity) at 2026-12-01T15:22:23.722Z, 3 sent
                  USB link: unknown

                """)
    }

    @Test func problemsComeFirst() throws {
        let status = try value(
            #"{"bluetooth":{"adapter":"hci0","advertising":true,"bluez_running":true,"gatt_registered":true,"problem":"adapter hci0 is powered off\u001b[2J","wake_subscriber":true},"epoch":7,"instance_id":"ab","live_activity":{"enabled":false,"retention_seconds":600},"phone_app":{"state":"foreground","return_entry":null},"status":"ok","tasks":{"active":0,"store_revision":9,"total":0},"uptime_seconds":3725,"usb":{"interface":"aiden0","link":"down"},"version":"0.2.0","wake":{"last_at":null,"last_reason":null,"last_seq":null,"send_failures":1,"sent":0,"transport":"bluez"}}"#
        )
        #expect(
            StatusSummary.text(status) == """
                ● aiden-board: running, 3 problems
                    Problem: Bluetooth: adapter hci0 is powered off\\u{1b}[2J
                    Problem: USB link down
                    Problem: 1 Wake not sent or not delivered since the start
                      Board: aiden-board 0.2.0, up 1 h 2 min, epoch 7, instance ab
                      Tasks: 0 active, 0 ended (Live Activity disabled)
                       Wake: bluez on hci0, phone subscribed, advertising, no Wake yet, 0 sent
                   USB link: down on aiden0
                  Phone app: foreground

                """)
    }

    /// Another version's answer, without the keys the summary reads: every field, flattened, rather than nothing.
    @Test func anUnknownShapeIsNotSummarised() throws {
        #expect(StatusSummary.text(try value(#"{"status":"ok","version":"9"}"#)) == nil)
        #expect(StatusSummary.text(try value(#"[1]"#)) == nil)
    }

    @Test(arguments: [(UInt64(0), "0 s"), (59, "59 s"), (61, "1 min 1 s"), (3600, "1 h 0 min"), (90_061, "1 d 1 h")])
    func durationsReadNaturally(seconds: UInt64, text: String) {
        #expect(StatusSummary.duration(seconds) == text)
    }
}
