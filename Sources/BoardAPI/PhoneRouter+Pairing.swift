import FoundationEssentials
import LiveActivity
import NetworkAddress
import WireFormat

/// `POST /api/bluetooth/pairing/start`: opens the board's Bluetooth pairing window for `seconds` (optional body
/// `{"seconds": N}`, 1…300, default 120). Only the phone at the other end of the USB link may ask
/// (`AccessPolicy.decidePairing`: 403 `not_ecm_peer` or `cross_site`), with `Content-Type: application/json`
/// (else 415). The router only decides; the shell performs the returned effect, and the peripheral's lifecycle
/// says what came of it (a window ends at most 300 s after it opened, and the next one waits out a cool-down),
/// which the shell answers with `pairingAnswer`.
extension PhoneRouter {
    package static let defaultPairingSeconds = 120
    package static let maximumPairingSeconds = 300

    /// 415 unless the pairing request (or an answer: `what`) says it is JSON; nil when it does.
    static func refusedMediaType(_ request: HTTPRequest, what: String = "a pairing request") -> RouteResult? {
        guard !isJSON(contentType: request.header("content-type")) else { return nil }
        let sent = request.header("content-type").map { "'\(AccessPolicy.shown($0))'" } ?? "none"
        return RouteResult(
            response: Responses.error(
                JSONError(
                    status: 415, code: "unsupported_media_type",
                    message: "\(what) must be sent with Content-Type: application/json (sent: \(sent))")))
    }

    func pairingStart(_ request: HTTPRequest, facts: BoardFacts, now: Date) -> RouteResult {
        if let refused = Self.refusedMediaType(request) { return refused }
        let bluetooth = facts.bluetooth
        guard facts.wake.transport == "bluez" else {
            return RouteResult(
                response: Responses.error(
                    JSONError(
                        status: 409, code: "not_available",
                        message: "pairing needs the BLE Wake transport ([wake] transport = \"bluez\"); this board uses "
                            + "\"\(facts.wake.transport)\"")))
        }
        guard bluetooth.bluezRunning == true, bluetooth.adapterPresent == true else {
            let why =
                bluetooth.bluezRunning != true
                ? "bluetoothd is not running on the system bus"
                : "adapter \(bluetooth.adapter) is not present"
            return RouteResult(
                response: Responses.error(
                    JSONError(
                        status: 503, code: "unavailable", message: "cannot open a pairing window: \(why)")))
        }
        let seconds: Int
        let phone: String?
        let phoneBonded: Bool
        do {
            seconds = try Self.pairingSeconds(request.body)
            phone = try Self.pairingPhoneAddress(request.body)
            phoneBonded = try Self.pairingPhoneBonded(request.body, phone: phone)
        } catch {
            return RouteResult(response: Responses.error(error))
        }
        // The answer if the window opens as asked; the shell answers with what the lifecycle decided instead.
        return RouteResult(
            response: Self.pairingAnswer(.open(closesIn: .seconds(seconds)), now: now),
            effect: .openPairingWindow(seconds: seconds, phoneAddress: phone, phoneBonded: phoneBonded))
    }

    /// The answer to a pairing request, from what became of it: `200` with when the window closes (or that the
    /// asking phone's bond is kept), `429` `pairing_cooling_down` with `Retry-After` (whole seconds, rounded up,
    /// so a client that waits that long is not refused again), or `503` with why no window could open.
    package static func pairingAnswer(_ outcome: PairingOutcome, now: Date) -> HTTPResponse {
        switch outcome {
        case let .open(closesIn):
            let body = JSONBody.ok([
                .pairing: PairingWindowBody(
                    open: true, closesAt: Timestamp.format(now.addingTimeInterval(Self.timeInterval(closesIn))),
                    seconds: Self.wholeSecondsRoundedUp(closesIn))
            ])
            return HTTPResponse(
                status: 200, headers: Responses.jsonHeaders + [("ETag", ETag.digest(body))], body: body)
        case .bondKept:
            let body = JSONBody.ok([.pairing: PairingWindowBody(open: false, bonded: true)])
            return HTTPResponse(
                status: 200, headers: Responses.jsonHeaders + [("ETag", ETag.digest(body))], body: body)
        case let .coolingDown(retryIn):
            let seconds = max(Self.wholeSecondsRoundedUp(retryIn), 1)
            var response = Responses.error(
                JSONError(
                    status: 429, code: "pairing_cooling_down",
                    message: "a pairing window closed recently and the board stays closed for a while after "
                        + "each; a new one may open in \(seconds) s"))
            response.headers.append(("Retry-After", String(seconds)))
            return response
        case let .failed(why):
            return JSONError(status: 503, code: "unavailable", message: "cannot open a pairing window: \(why)").response
        }
    }

    /// The optional `{"seconds": N}` body; empty means the default. Other fields are ignored (permissive,
    /// like every body the board reads).
    static func pairingSeconds(_ body: [UInt8]) throws(JSONError) -> Int {
        if body.allSatisfy({ $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 }) { return defaultPairingSeconds }
        let object = try JSONBody.object(body)
        guard let value = object["seconds"] else { return defaultPairingSeconds }
        guard let number = value.double, number == number.rounded(),
            number >= 1, number <= Double(maximumPairingSeconds)
        else {
            throw JSONError(
                status: 400, code: "invalid",
                message: "\"seconds\" must be a whole number from 1 to \(maximumPairingSeconds)",
                field: "seconds")
        }
        return Int(number)
    }

    /// The optional `"phone_address": "AA:BB:CC:DD:EE:FF"`: the asking phone host's own Bluetooth address, whose
    /// stale bond the board forgets when the window opens (a phone that asks to pair holds no bond itself).
    /// Anything but an address (`BluetoothAddress`) is refused, so nothing else can name a device to remove.
    static func pairingPhoneAddress(_ body: [UInt8]) throws(JSONError) -> String? {
        if body.allSatisfy({ $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 }) { return nil }
        let object = try JSONBody.object(body)
        guard let value = object["phone_address"], value != .null else { return nil }
        guard case let .string(text) = value, let address = BluetoothAddress(text) else {
            throw JSONError(
                status: 400, code: "invalid",
                message: "\"phone_address\" must be a Bluetooth address like AA:BB:CC:DD:EE:FF", field: "phone_address")
        }
        return address.description
    }

    /// `"phone_bonded": true`: the phone still holds its half of a bond with the board and asks because its
    /// links fail; the board opens the window only if it holds no bond with `phone_address` (required then).
    static func pairingPhoneBonded(_ body: [UInt8], phone: String?) throws(JSONError) -> Bool {
        if body.allSatisfy({ $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 }) { return false }
        let object = try JSONBody.object(body)
        guard let value = object["phone_bonded"], value != .null else { return false }
        guard case let .bool(bonded) = value else {
            throw JSONError(
                status: 400, code: "invalid", message: "\"phone_bonded\" must be true or false", field: "phone_bonded")
        }
        if bonded && phone == nil {
            throw JSONError(
                status: 400, code: "invalid", message: "\"phone_bonded\" needs \"phone_address\"",
                field: "phone_address")
        }
        return bonded
    }

    /// `application/json`, in any case, with or without parameters (`; charset=utf-8`) and optional whitespace
    /// around the media type; nothing else (`application/json-seq`, `text/plain`, a form).
    static func isJSON(contentType: String?) -> Bool {
        guard let contentType else { return false }
        let mediaType = contentType.split(separator: ";", maxSplits: 1, omittingEmptySubsequences: false)[0]
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" }
        let trimmed = mediaType.drop(while: isSpace).reversed().drop(while: isSpace).reversed()
        return String(trimmed).lowercased() == "application/json"
    }

    private static func wholeSecondsRoundedUp(_ duration: Duration) -> Int {
        let (seconds, attoseconds) = duration.components
        return Int(clamping: seconds + (attoseconds > 0 ? 1 : 0))
    }

    private static func timeInterval(_ duration: Duration) -> TimeInterval {
        let (seconds, attoseconds) = duration.components
        return Double(seconds) + Double(attoseconds) / 1e18
    }
}
