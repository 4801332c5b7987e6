import Doctor
import NetworkAddress

extension LocalInterfaces {
    /// The USB link as `/status` reports it: the interface holding the first specific (not wildcard,
    /// not loopback) listen address, up when it is up and has carrier.
    package func usbLink(listen: [SocketEndpoint]) -> (link: String, interface: String?) {
        let specific = listen.map(\.address).filter { !$0.isUnspecified && !$0.isLoopback }
        guard let address = specific.first else { return ("unknown", nil) }
        guard let entry = interface(holding: address) else { return ("down", nil) }
        return (entry.isUp && entry.isRunning ? "up" : "down", entry.name)
    }
}
