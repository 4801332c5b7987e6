import FoundationEssentials

/// Reads the two answers bonding over the cable needs: the board's Bluetooth address from
/// `GET /api/bluetooth/status`, and whether `POST /api/bluetooth/pairing/start` opened the window. The
/// address decides which device this host pairs with, so it is checked strictly: six pairs of hex digits,
/// nothing else (a board's answer is hostile input like any other).
package enum BoardPairingAnswer {
    /// The board's adapter address, in upper case as BlueZ writes it.
    package static func boardAddress(status: Int, body: [UInt8]) -> Result<String, BoardProblem> {
        guard status == 200 else { return .failure(refusal(status: status, body: body)) }
        let answer: BluetoothStatus
        do {
            answer = try JSONDecoder().decode(BluetoothStatus.self, from: Data(body))
        } catch {
            return .failure(.malformed(BoardAnswerError(kind: .notJSON, message: "not a Bluetooth status object")))
        }
        guard let address = answer.address else {
            let why = answer.problem.map { ": \(Self.bounded($0))" } ?? ""
            return .failure(
                .malformed(
                    BoardAnswerError(
                        kind: .missingField, field: "address", message: "the board knows no adapter address\(why)")))
        }
        guard isAddress(address) else {
            return .failure(
                .malformed(BoardAnswerError(kind: .invalidValue, field: "address", message: "not a Bluetooth address")))
        }
        return .success(address.uppercased())
    }

    /// Whether the pairing window is open after the request (`{"pairing":{"open":true,…}}`).
    package static func windowOpened(status: Int, body: [UInt8]) -> Result<Void, BoardProblem> {
        guard status == 200 else { return .failure(refusal(status: status, body: body)) }
        guard let answer = try? JSONDecoder().decode(PairingAnswer.self, from: Data(body)), answer.pairing.open else {
            return .failure(
                .malformed(
                    BoardAnswerError(kind: .invalidValue, field: "pairing.open", message: "the window is not open")))
        }
        return .success(())
    }

    /// `AA:BB:CC:DD:EE:FF`, either case.
    package static func isAddress(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        guard bytes.count == 17 else { return false }
        for (index, byte) in bytes.enumerated() {
            if index % 3 == 2 {
                guard byte == UInt8(ascii: ":") else { return false }
            } else {
                guard (byte >= 0x30 && byte <= 0x39) || (byte | 0x20 >= 0x61 && byte | 0x20 <= 0x66) else {
                    return false
                }
            }
        }
        return true
    }

    private static func refusal(status: Int, body: [UInt8]) -> BoardProblem {
        let message = (try? JSONDecoder().decode(ErrorAnswer.self, from: Data(body)))?.error.message.map(bounded)
        return status == 403 ? .forbidden(message: message) : .httpStatus(status, message: message)
    }

    /// The board's words, at most 200 characters, without control characters.
    private static func bounded(_ text: String) -> String {
        String(
            String.UnicodeScalarView(
                text.unicodeScalars.prefix(200).filter { $0.properties.generalCategory != .control }))
    }
}

private struct BluetoothStatus: Decodable {
    var address: String?
    var problem: String?
}

private struct PairingAnswer: Decodable {
    struct Window: Decodable { var open: Bool }
    var pairing: Window
}

private struct ErrorAnswer: Decodable {
    struct Body: Decodable { var message: String? }
    var error: Body
}
