/// Where the phone's Wake central stands, for the phone client's status line and `connection` events.
package enum CentralState: Sendable, Equatable, CustomStringConvertible {
    /// bluetoothd (`org.bluez`) is not on the system bus.
    case waitingForBlueZ
    /// The adapter is missing or powered off.
    case waitingForAdapter(String)
    /// Discovery is on (filtered on the Wake service UUID, LE only) until the board is seen.
    case searching
    case connecting(address: String)
    /// Connected; waiting for services, subscribing, reading the last Wake.
    case subscribing(address: String)
    /// Notifications are on: every Wake arrives.
    case subscribed(address: String)
    /// A connection failed or dropped; the next attempt is in `retryIn`.
    case reconnecting(retryIn: Duration)
    /// The board refused the link's security: it no longer knows this phone's bond (it was reset, or the bond
    /// was removed there). Retried slowly, never in a tight loop; the fix is to pair again (docs/bluetooth.md).
    case bondLost(address: String, retryIn: Duration)
    /// The link dropped while subscribing and this host has no bond with the board: the board's Wake
    /// characteristic needs an encrypted link and it refuses to pair outside its pairing window. Retried slowly,
    /// and at once when the device becomes paired; the fix is to pair (docs/bluetooth.md).
    case notBonded(address: String, retryIn: Duration)
    /// Bonding with the board over the USB cable: its pairing window opened on request, this host pairs.
    case pairing(address: String)
    /// Bonding over the cable failed (`reason` says how); the next try is in `retryIn`, or when the board is
    /// plugged in again.
    case pairingFailed(address: String, reason: String, retryIn: Duration)

    package var description: String {
        switch self {
        case .waitingForBlueZ: "waiting for bluetoothd"
        case .waitingForAdapter(let adapter): "no Bluetooth adapter \(adapter) (missing or powered off)"
        case .searching: "searching for the board"
        case .connecting(let address): "connecting to \(address)"
        case .subscribing(let address): "subscribing to \(address)"
        case .subscribed(let address): "subscribed to \(address)"
        case .reconnecting(let delay): "reconnecting in \(delay)"
        case .bondLost(let address, let delay):
            "the board \(address) no longer knows this phone (bond lost); pair again; next try in \(delay)"
        case .notBonded(let address, let delay):
            "not bonded with the board \(address): open its pairing window and pair; next try in \(delay)"
        case .pairing(let address): "pairing with the board \(address) over the USB cable"
        case .pairingFailed(let address, let reason, let delay):
            "pairing with the board \(address) failed: \(reason); next try in \(delay) or when it is plugged in"
        }
    }
}

/// What the central can tell about itself.
package struct CentralFacts: Sendable, Equatable {
    package var state: CentralState
    /// The board's address once found.
    package var boardAddress: String?
    /// Links made since start (each gets exactly one StartNotify).
    package var connections: UInt64
    /// 12-byte values handed to `deliver`.
    package var valuesDelivered: UInt64
    /// The last thing that went wrong, in words.
    package var problem: String?
}
