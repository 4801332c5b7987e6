import NetworkAddress

/// Who may be served on the board's HTTP listeners at all, decided when a connection opens, before a byte of a
/// request is read; a refused one is answered 403 as soon as its headers are in, and never routed.
///
/// - By its peer (`decideConnection`): the peer must be inside `[http]
///   allowed_subnets`, or loopback; and a peer that is the board itself (loopback, or any address the board holds)
///   is served only when a loopback listener is configured. A process on the board that connects to 192.168.42.1
///   arrives from 192.168.42.1 (a local connection's source is its destination unless it binds another of the
///   board's addresses), so without this it would pass the subnet rule and read every snapshot as the phone does.
/// - When the connection opens (`decideArrival`): it must have come in on `[http] interface` (the ECM link), so a
///   stranger on another link that uses the same subnet (Android tethering uses 192.168.42.0/24) is not taken for
///   the phone. Local connections count as arriving on the interface that holds the address they were made to
///   (Linux tags them so), so this rule does not tell them apart: `decideConnection` does.
extension AccessPolicy {
    /// `isBoardAddress` is asked only about a peer that would otherwise be served (it reads the interfaces); nil
    /// when the board's addresses cannot be read, and then the peer cannot be told from the board: refused.
    package func decideConnection(peer: IPAddress, isBoardAddress: (IPAddress) -> Bool?) -> Decision {
        let address = peer.unmapped
        if address.isLoopback {
            return servesLoopback ? .allow : .deny(.connectionFromTheBoard(address))
        }
        guard allowedSubnets.contains(where: { $0.contains(address) }) else {
            return .deny(.peerOutsideAllowedSubnets(address))
        }
        guard !servesLoopback else { return .allow }
        switch isBoardAddress(address) {
        case false?: return .allow
        case true?: return .deny(.connectionFromTheBoard(address))
        case nil: return .deny(.boardAddressesUnknown(address))
        }
    }

    /// `interface` is the name of the interface the connection's first packet came in on (nil when unknown);
    /// `local` the address it was made to. Connections to a loopback address (a loopback listener, or loopback
    /// through a wildcard one) and a policy without an interface take any.
    package func decideArrival(peer: IPAddress, local: IPAddress?, interface arrived: String?) -> Decision {
        guard let expected = interface, !(local?.isLoopback ?? false), arrived != expected else { return .allow }
        return .deny(.arrivedOnAnotherInterface(peer.unmapped, interface: arrived, expected: expected))
    }
}
