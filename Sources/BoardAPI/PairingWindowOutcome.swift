/// What became of a request to open the Bluetooth pairing window, as the HTTP answer reports it
/// (`PhoneRouter.pairingAnswer`). The BLE peripheral's lifecycle decides (the 300 s limit of a window, the
/// cool-down after one); the Wake sink hands its answer over in these terms, since the BlueZ shell does not
/// depend on the board's API.
package enum PairingWindowOutcome: Sendable, Equatable {
    /// The window is open, newly or still (extended at most to its limit), and closes this long from now.
    case open(closesIn: Duration)
    /// No window is open and none may open yet: the cool-down after the last one ends this long from now.
    case coolingDown(retryIn: Duration)
    /// Asked by a phone that still holds a bond (`phone_bonded`): the board holds its half too, so no window
    /// opened and the phone keeps its bond.
    case bondKept
}
