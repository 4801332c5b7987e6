/// What the board peripheral can honestly say (for `/api/bluetooth/status` and `aiden-board doctor`):
/// "registered" means bluetoothd accepted the registration, not that a phone hears it.
package struct PeripheralFacts: Sendable, Equatable {
    /// nil until the first answer about `org.bluez`.
    package var bluezRunning: Bool?
    /// nil while bluetoothd's object tree has not been read.
    package var adapterPresent: Bool?
    package var powered: Bool?
    package var address: String?
    package var gattRegistered: Bool
    package var advertising: Bool
    package var agentRegistered: Bool
    /// bluetoothd holds a notify session on the Wake characteristic (a phone enabled notifications).
    package var wakeSubscriber: Bool
    /// How long the pairing window stays open; nil when closed.
    package var pairingClosesIn: Duration?
    /// `StartNotify` calls received (accepted or not), for diagnosis.
    package var startNotifyCalls: UInt64
    /// Complete registrations (application and advertisement) since start.
    package var registrations: UInt64
    /// What is wrong now, in words; nil when nothing is.
    package var problem: String?

    package init(
        bluezRunning: Bool? = nil, adapterPresent: Bool? = nil, powered: Bool? = nil, address: String? = nil,
        gattRegistered: Bool = false, advertising: Bool = false, agentRegistered: Bool = false,
        wakeSubscriber: Bool = false, pairingClosesIn: Duration? = nil, startNotifyCalls: UInt64 = 0,
        registrations: UInt64 = 0, problem: String? = nil
    ) {
        self.bluezRunning = bluezRunning
        self.adapterPresent = adapterPresent
        self.powered = powered
        self.address = address
        self.gattRegistered = gattRegistered
        self.advertising = advertising
        self.agentRegistered = agentRegistered
        self.wakeSubscriber = wakeSubscriber
        self.pairingClosesIn = pairingClosesIn
        self.startNotifyCalls = startNotifyCalls
        self.registrations = registrations
        self.problem = problem
    }
}
