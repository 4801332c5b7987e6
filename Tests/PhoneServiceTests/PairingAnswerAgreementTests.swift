import BoardAPI
import Foundation
import PhoneCore
import Testing
import WireFormat

/// The board's answer to a pairing request (`PhoneRouter.pairingAnswer`), read back by the phone
/// (`BoardPairingAnswer.windowOpened`): every outcome the board can decide arrives as what it means.
@Suite struct PairingAnswerAgreementTests {
    static let now = Date(timeIntervalSince1970: 1_796_000_000)

    private func roundTrip(_ outcome: PairingOutcome) -> Result<PairingOutcome, BoardProblem> {
        let response = PhoneRouter.pairingAnswer(outcome, now: Self.now)
        return BoardPairingAnswer.windowOpened(status: response.status, body: response.body)
    }

    @Test func whatTheBoardDecidesThePhoneReads() {
        #expect(roundTrip(.open(closesIn: .seconds(120))) == .success(.open(closesIn: .seconds(120))))
        #expect(
            roundTrip(.open(closesIn: .milliseconds(119_001))) == .success(.open(closesIn: .seconds(120))),
            "whole seconds, rounded up")
        #expect(roundTrip(.bondKept) == .success(.bondKept))
    }

    @Test func refusalsArriveInTheBoardsWords() {
        guard case let .failure(.httpStatus(429, message)) = roundTrip(.coolingDown(retryIn: .seconds(95))) else {
            Issue.record("a cool-down is a 429")
            return
        }
        #expect(message?.hasSuffix("a new one may open in 95 s") == true)
        #expect(
            roundTrip(.failed("the adapter was not made pairable in time"))
                == .failure(
                    .httpStatus(503, message: "cannot open a pairing window: the adapter was not made pairable in time")
                ))
    }

    /// A 200 that is no answer to the request is malformed, naming the member at fault.
    @Test func aTwoHundredThatSaysNeitherIsMalformed() {
        func read(_ json: String) -> Result<PairingOutcome, BoardProblem> {
            BoardPairingAnswer.windowOpened(status: 200, body: Array(json.utf8))
        }
        guard case let .failure(.malformed(noSeconds)) = read(#"{"status":"ok","pairing":{"open":true}}"#),
            case let .failure(.malformed(closed)) = read(#"{"status":"ok","pairing":{"open":false}}"#),
            case .failure(.malformed) = read(#"{"status":"ok","pairing":"open"}"#)
        else {
            Issue.record("each of them is malformed")
            return
        }
        #expect(noSeconds.field == "pairing.seconds" && closed.field == "pairing.open")
    }
}
