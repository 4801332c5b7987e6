/// The USB cable to the board, as the phone's central needs it to bond: only the host at the other end of
/// the board's USB link may ask the board to open its pairing window, and the board names its own Bluetooth
/// address over that link. The phone implements it over HTTP on the ECM link; tests answer by hand.
package protocol PairingCable: Sendable {
    /// Asks the board to open its pairing window for this host (`hostAddress`: its adapter's address, so the
    /// board forgets a stale bond with it) and returns the board's Bluetooth address (as BlueZ writes it,
    /// `AA:BB:CC:DD:EE:FF`); throws, in words, why the window is not open.
    func openPairingWindow(hostAddress: String?) async throws(PairingCableError) -> String

    /// This host still holds its half of the bond but its links to the board fail: asks the board whether it
    /// still holds its half (`phone_bonded`). true: it does not, and opened its pairing window for this host
    /// (drop the stale half and pair again); false: it does, so the bond stays (the failures were the
    /// radio's). Throws, in words, when the board could not be asked: the bond stays then too.
    func confirmBondLost(hostAddress: String?) async throws(PairingCableError) -> Bool
}

/// Why the board's pairing window could not be opened over the cable, in words for the card and the log.
package struct PairingCableError: Error, Sendable, Equatable, CustomStringConvertible {
    package var message: String
    /// How long the board asked not to be asked again (`429` with `Retry-After`: its pairing window is cooling
    /// down), nil when it named no time.
    package var retryAfter: Duration?

    package init(_ message: String, retryAfter: Duration? = nil) {
        self.message = message
        self.retryAfter = retryAfter
    }

    package var description: String { message }
}
