import Configuration
import Doctor
import PhoneCore

/// The board over the cable: `GET /status` must answer 200; a 403 is the board's access policy refusing
/// this host (an address outside its allowed subnets, another interface than its own) or its request. No answer
/// at all is the cable, the link, or a board whose IP firewall drops this host.
extension PhoneDoctor {
    static func boardStatus(_ url: BoardURL, _ response: BoardResponse) -> DoctorFinding {
        let request = "GET \(url)/status"
        let status: Int
        let body: [UInt8]
        switch response {
        case let .failed(detail):
            return .problem(
                "\(request) got no answer: \(BoardText.printable(detail))",
                fix: "check the cable and the link (above), and that this host's address toward the board is in the "
                    + "board's [http] allowed_subnets and its unit's IPAddressAllow=; on the "
                    + "board: 'systemctl status aiden-board', 'journalctl -u aiden-board' and 'aiden-board doctor'")
        case let .answered(code, _, bytes, _):
            (status, body) = (code, bytes)
        }
        switch BoardAnswer.status(status: status, body: body) {
        case let .success(answer):
            if case let .instance(id) = answer { return .ok("\(request) answers 200 (board instance \(id))") }
            return .ok("\(request) answers 200")
        case let .failure(problem):
            let said = problem.boardMessage.map { "; the board says: \($0)" } ?? ""
            if case .forbidden = problem {
                return .problem(
                    "\(request) answered 403: the board refuses this host, whose address toward it is outside the "
                        + "board's allowed subnets\(said)",
                    fix: "give \(ecmInterface) an address in the board's subnet (192.168.42.2/24 in "
                        + "70-aiden-board.network), turn off other networks in that subnet (see above), and keep "
                        + "[http] allowed_subnets on the board covering it")
            }
            return .problem(
                "\(request) answered HTTP \(status)\(said)",
                fix: "on the board: 'journalctl -u aiden-board' and 'aiden-board doctor'; check that [board] url "
                    + "names the board's [http] listen address and port")
        }
    }
}
