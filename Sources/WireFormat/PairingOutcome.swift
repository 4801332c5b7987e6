/// What became of a request to open the board's Bluetooth pairing window (`POST /api/bluetooth/pairing/start`).
/// The board's peripheral decides it (`PeripheralLifecycle`), the board answers with it
/// (`PhoneRouter.pairingAnswer`) and the phone reads the answer back (`BoardPairingAnswer`): one type in all
/// three, so an outcome added here breaks the build where it is answered (the board) and acted on (the phone's
/// `BoardPairingCable`) until each gives it a meaning.
package enum PairingOutcome: Sendable, Equatable {
    /// The window is open (newly, or the open one extended at most to its limit) and closes this long from now.
    case open(closesIn: Duration)
    /// No window is open and none may open yet: the cool-down after the last one ends this long from now
    /// (answered `429 pairing_cooling_down` with `Retry-After`).
    case coolingDown(retryIn: Duration)
    /// Asked by a phone that still holds a bond (`phone_bonded`): the board holds its half too, so no window
    /// opened and the phone keeps its bond.
    case bondKept
    /// No window could be made ready (no peripheral, the stale bond not forgotten or the adapter not made
    /// pairable in time): it is closed, and nobody may pair. In words, for the log and the `503` answer.
    case failed(String)
}

extension PairingOutcome {
    /// The outcome a `200` answer's `pairing` member reports: `.open` with its whole seconds, or `.bondKept`;
    /// nil for a member that says neither (a window neither open nor kept is not an answer to the request).
    package init?(_ body: PairingWindowBody) {
        if body.open {
            guard let seconds = body.seconds, seconds >= 0 else { return nil }
            self = .open(closesIn: .seconds(seconds))
        } else if body.bonded == true {
            self = .bondKept
        } else {
            return nil
        }
    }
}

/// The `pairing` member of a `200` answer to a pairing request: `{"open":true,"closes_at":"…","seconds":120}`
/// (`seconds` whole, rounded up) or
/// `{"open":false,"bonded":true}`. Absent members are left out of the encoding; read, only `open` is required
/// and a member of the wrong type reads as absent.
package struct PairingWindowBody: Codable, Sendable, Equatable {
    package var open: Bool
    package var closesAt: String?
    package var seconds: Int?
    package var bonded: Bool?

    package init(open: Bool, closesAt: String? = nil, seconds: Int? = nil, bonded: Bool? = nil) {
        self.open = open
        self.closesAt = closesAt
        self.seconds = seconds
        self.bonded = bonded
    }

    enum CodingKeys: String, CodingKey {
        case open, seconds, bonded
        case closesAt = "closes_at"
    }

    package init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            open: try container.decode(Bool.self, forKey: .open),
            closesAt: container.lenient(String.self, forKey: .closesAt),
            seconds: container.lenient(Int.self, forKey: .seconds),
            bonded: container.lenient(Bool.self, forKey: .bonded))
    }
}
