import FoundationEssentials
import WireFormat

/// Reads the two answers bonding over the cable needs: the board's Bluetooth address from
/// `GET /api/bluetooth/status`, and whether `POST /api/bluetooth/pairing/start` opened the window. The
/// address decides which device this host pairs with, so an answer without a valid one is a failure.
package enum BoardPairingAnswer {
    /// The board's adapter address (`BoardBluetoothAnswer`), in upper case as BlueZ writes it.
    package static func boardAddress(status: Int, body: [UInt8]) -> Result<String, BoardProblem> {
        guard status == 200 else { return .failure(refusal(status: status, body: body)) }
        guard let answer = BoardBluetoothAnswer(body: body) else {
            return .failure(.malformed(BoardAnswerError(kind: .notJSON, message: "not a Bluetooth status answer")))
        }
        guard let address = answer.address else {
            let why = answer.problem.map { ": \($0)" } ?? ""
            return .failure(
                .malformed(
                    BoardAnswerError(
                        kind: .missingField, field: "address",
                        message: "the board names no Bluetooth address of its own\(why)")))
        }
        return .success(address)
    }

    /// What a pairing request came to when the board answered 200: the window open (for how long), or this
    /// host's bond kept (`{"pairing":{"open":false,"bonded":true}}`, asked with `phone_bonded`). The board's
    /// refusals (a cool-down's 429, a 503) are failures here, with its own words.
    package static func windowOpened(status: Int, body: [UInt8]) -> Result<PairingOutcome, BoardProblem> {
        guard status == 200 else { return .failure(refusal(status: status, body: body)) }
        guard let answer = try? JSONDecoder().decode(PairingAnswer.self, from: Data(body)) else {
            return .failure(
                .malformed(BoardAnswerError(kind: .notJSON, message: "not a pairing window answer")))
        }
        guard let outcome = PairingOutcome(answer.pairing) else {
            let why =
                answer.pairing.open
                ? BoardAnswerError(
                    kind: .invalidValue, field: "pairing.seconds", message: "the open window does not say for how long")
                : BoardAnswerError(kind: .invalidValue, field: "pairing.open", message: "the window is not open")
            return .failure(.malformed(why))
        }
        return .success(outcome)
    }

    private static func refusal(status: Int, body: [UInt8]) -> BoardProblem {
        let message = BoardAnswer.errorMessage(in: body).map { BoardText.printable($0) }
        return status == 403 ? .forbidden(message: message) : .httpStatus(status, message: message)
    }
}

private struct PairingAnswer: Decodable {
    var pairing: PairingWindowBody
}
