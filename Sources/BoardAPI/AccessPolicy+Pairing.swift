import Logging
import NetworkAddress

/// Who may open the Bluetooth pairing window (`POST /api/bluetooth/pairing/start`). The cable is the trust
/// anchor: only the phone at the other end of the USB ECM link may, and only a program there, not a web page its
/// browser shows. Runs on that path only, after `decide` (peer on loopback or the link, `Host` naming the board).
///
/// - The peer must be inside `[http] allowed_subnets` and must not be the board: not loopback, not the address
///   the request arrived on, not any other address the board holds (`boardAddresses`). A process on the board
///   that connects to 192.168.42.1 arrives from 192.168.42.1 (a local connection's source is its destination
///   unless it binds another of the board's own addresses), so it is refused like one on loopback. When the
///   local address is unknown the peer cannot be told from the board: refused too.
/// - It must not be cross-site: `Origin`, when present, must be the board's own origin, `http://` and the `Host`
///   the request named (which `decide` checked names this board); `Sec-Fetch-Site`, when present, `same-origin`
///   or `none`. Browsers send `Origin` with every cross-origin POST and `Sec-Fetch-Site` with every request, and
///   the board serves no pages, so nothing in a browser is same-origin with it. The router also demands
///   `Content-Type: application/json`, which an HTML form cannot send and a page's `fetch` sends only after a
///   CORS preflight, which the board never grants (it sends no CORS headers).
extension AccessPolicy {
    /// `boardAddresses` nil: they could not be read, and the peer cannot be told from the board (refused).
    package func decidePairing(_ request: HTTPRequest, boardAddresses: [IPAddress]?) -> Decision {
        guard case let .ip(address) = request.peer else { return .deny(.pairingOffTheLink(request.peer)) }
        let peer = address.unmapped
        if peer.isLoopback || (boardAddresses ?? []).contains(where: { $0.unmapped == peer }) {
            return .deny(.pairingFromTheBoard(peer))
        }
        guard allowedSubnets.contains(where: { $0.contains(peer) }) else {
            return .deny(.pairingOffTheLink(.ip(peer)))
        }
        guard boardAddresses != nil else { return .deny(.boardAddressesUnknown(peer)) }
        guard let local = request.localAddress else { return .deny(.pairingLocalAddressUnknown(peer)) }
        if local.unmapped == peer { return .deny(.pairingFromTheBoard(peer)) }
        return decideSameSite(request, refusing: .pairing)
    }

    /// The cross-site rule alone (see above): a request a web page sent is refused, whatever its peer. The
    /// person's answers (`refusing: .answer`) are held to it too.
    package func decideSameSite(_ request: HTTPRequest, refusing: PersonRequest) -> Decision {
        if let origin = request.header("origin") {
            let own = "http://" + (request.header("host") ?? "")
            guard request.header("host") != nil, origin.lowercased() == own.lowercased() else {
                return .deny(.crossSiteOrigin(origin, own: own, refusing: refusing))
            }
        }
        if let site = request.header("sec-fetch-site"), !AccessPolicy.ownFetchSites.contains(site.lowercased()) {
            return .deny(.crossSiteFetch(site, refusing: refusing))
        }
        return .allow
    }

    /// The `Sec-Fetch-Site` values of a request the person made themselves: from the board's own origin, or
    /// typed or bookmarked (`none`). `same-site` is refused: a page from another port of the same address is the
    /// same site but another origin, and not the board's.
    private static let ownFetchSites: Set<String> = ["same-origin", "none"]

    /// A header value as a message quotes it (`ControlCharacter.shown`): at most 100 characters, control
    /// characters escaped, so a hostile value neither floods the log nor breaks its line.
    static func shown(_ value: String) -> String {
        ControlCharacter.shown(value, limit: 100)
    }
}
