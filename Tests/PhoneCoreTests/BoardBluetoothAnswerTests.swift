import Testing
import WireFormat

@testable import PhoneCore

/// The board's `GET /api/bluetooth/status` as the phone host reads it: only what it needs, and nothing the
/// board sends can make it look up a wrong object or drive the terminal.
@Suite struct BoardBluetoothAnswerTests {
    static func read(_ json: String) -> BoardBluetoothAnswer? {
        BoardBluetoothAnswer(body: Array(json.utf8))
    }

    @Test func readsTheTransportAddressAndProblem() {
        let body =
            #"{"status":"ok","transport":"bluez","adapter":"hci0","adapter_present":true,"#
            + #""address":"00:aa:01:00:12:34","bluez_running":true,"powered":true,"problem":null,"epoch":4660}"#
        #expect(Self.read(body) == BoardBluetoothAnswer(transport: "bluez", address: "00:AA:01:00:12:34", problem: nil))
        #expect(
            Self.read(#"{"status":"ok","transport":"bluez","address":null,"problem":"adapter hci0 is not present"}"#)
                == BoardBluetoothAnswer(transport: "bluez", address: nil, problem: "adapter hci0 is not present"))
    }

    @Test(arguments: [
        "00:AA:01:00:12", "00:AA:01:00:12:34:56", "0:AA:01:00:12:34", "00:AA:01:00:12:3G", "../../org/bluez",
        "00:AA:01:00:12:34\n", "", "００:AA:01:00:12:34",
    ])
    func anAddressThatIsNotOneIsNone(address: String) {
        let body = #"{"status":"ok","transport":"bluez","address":"# + JSONString.quote(address) + "}"
        #expect(Self.read(body)?.address == nil)
    }

    @Test func membersOfTheWrongTypeReadAsAbsentAndTextIsCleaned() {
        #expect(
            Self.read(#"{"status":"ok","transport":7,"address":["00:AA:01:00:12:34"],"problem":{"x":1}}"#)
                == BoardBluetoothAnswer(transport: nil, address: nil, problem: nil))
        let hostile = Self.read(
            #"{"status":"ok","transport":"bluez\u001b[2J","problem":"\u202eevil\nline"#
                + String(repeating: "x", count: 300)
                + #""}"#)
        #expect(hostile?.transport == "bluez [2J")
        #expect(hostile?.problem?.hasPrefix("evil line") == true)
        #expect(hostile?.problem?.count == 200, "cut to 200 characters, the mark included")
        #expect(hostile?.problem?.hasSuffix("...") == true)
    }

    @Test(arguments: [#"{"status":"error","error":{"code":"forbidden"}}"#, "not json", "[]", "{}"])
    func anythingButAnOkAnswerIsNoAnswer(body: String) {
        #expect(Self.read(body) == nil)
    }
}
