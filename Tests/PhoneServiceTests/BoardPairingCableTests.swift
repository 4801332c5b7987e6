import BlueZ
import PhoneCore
import PhoneTestSupport
import Platform
import Testing

@testable import PhoneService

/// The cable as the central uses it: the board's address and its window, the board's refusals in its own
/// words, and an unreachable board asked again for a bounded time.
@Suite struct BoardPairingCableTests {
    static func cable(_ board: FakeBoard, attempts: Int = 3) -> BoardPairingCable {
        BoardPairingCable(
            transport: FakeBoardTransport(board: board), runtime: SerialRuntime(label: "cable-test"),
            attempts: attempts,
            pause: .milliseconds(10))
    }

    @Test func theWindowOpensAndTheBoardNamesItsAddress() async throws {
        let board = FakeBoard()
        board.bluetoothAddress = "00:aa:01:00:12:34"
        let address = try await Self.cable(board).openPairingWindow(hostAddress: "00:AA:01:01:00:01")
        #expect(address == "00:AA:01:00:12:34")
        #expect(
            board.requests == [
                .bluetoothStatus,
                .openPairingWindow(seconds: BoardPairingCable.windowSeconds, phoneAddress: "00:AA:01:01:00:01"),
            ])
        let request = BoardRequest.openPairingWindow(seconds: 120, phoneAddress: "00:AA:01:01:00:01")
        #expect(request.method == "POST" && request.target == "/api/bluetooth/pairing/start")
        #expect(request.headers.contains { $0 == ("Content-Type", "application/json") })
        #expect(request.body == Array(#"{"seconds":120,"phone_address":"00:AA:01:01:00:01"}"#.utf8))
        #expect(BoardRequest.openPairingWindow(seconds: 60, phoneAddress: nil).body == Array(#"{"seconds":60}"#.utf8))
    }

    /// Links to the bonded board fail: the cable asks the board whether it still holds this host's bond
    /// (`phone_bonded`), and only its "no" (the window opened) tells the central to drop its half.
    @Test func theBoardSaysWhetherItStillHoldsTheBond() async throws {
        let board = FakeBoard()
        board.bluetoothAddress = "00:AA:01:00:12:34"
        board.holdsPhoneBond = true
        #expect(try await Self.cable(board).confirmBondLost(hostAddress: "00:AA:01:01:00:01") == false)
        #expect(
            board.requests == [
                .openPairingWindow(
                    seconds: BoardPairingCable.windowSeconds, phoneAddress: "00:AA:01:01:00:01", phoneBonded: true)
            ])
        board.holdsPhoneBond = false
        #expect(try await Self.cable(board).confirmBondLost(hostAddress: "00:AA:01:01:00:01") == true)
        await #expect(throws: PairingCableError.self, "without this host's address the board cannot be asked") {
            try await Self.cable(board).confirmBondLost(hostAddress: nil)
        }
        let request = BoardRequest.openPairingWindow(seconds: 120, phoneAddress: "00:AA:01:01:00:01", phoneBonded: true)
        #expect(
            request.body == Array(#"{"seconds":120,"phone_address":"00:AA:01:01:00:01","phone_bonded":true}"#.utf8))
    }

    @Test func aRefusalCarriesTheBoardsReason() async {
        let board = FakeBoard()
        board.bluetoothAddress = "00:AA:01:00:12:34"
        board.pairingRefusal = (403, "pairing needs the phone at the other end of the USB link")
        await #expect(
            throws: PairingCableError(
                "the board refused (HTTP 403): pairing needs the phone at the other end of the USB link")
        ) {
            try await Self.cable(board).openPairingWindow(hostAddress: nil)
        }
        #expect(board.requests.count == 2, "a refusal is not asked again")
    }

    /// A window cooling down: the board's `Retry-After` goes with the refusal, for the central's next wait.
    @Test func aCoolingDownBoardSaysWhenToAskAgain() async {
        let board = FakeBoard()
        board.bluetoothAddress = "00:AA:01:00:12:34"
        board.pairingRefusal = (429, "a new one may open in 95 s")
        board.pairingRetryAfter = .seconds(95)
        await #expect(
            throws: PairingCableError(
                "the board refused (HTTP 429): a new one may open in 95 s", retryAfter: .seconds(95))
        ) {
            try await Self.cable(board).openPairingWindow(hostAddress: nil)
        }
    }

    @Test func aBoardWithoutAnAddressOpensNoWindow() async {
        let board = FakeBoard()
        board.bluetoothAddress = nil
        await #expect(throws: PairingCableError.self) {
            try await Self.cable(board).openPairingWindow(hostAddress: nil)
        }
        #expect(board.requests == [.bluetoothStatus])
        board.bluetoothAddress = "not an address"
        #expect(await Self.cable(board).boardAddress() == nil, "junk is no address")
    }

    @Test func anUnreachableBoardIsAskedAgainThenGivenUp() async {
        let board = FakeBoard()
        board.mode = .unreachable("192.168.42.1:8080: connection refused")
        #expect(await Self.cable(board, attempts: 3).boardAddress() == nil)
        #expect(board.requests == [.bluetoothStatus, .bluetoothStatus, .bluetoothStatus])
    }
}
