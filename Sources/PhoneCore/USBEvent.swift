/// A hotplug event for the board's VID:PID, as the libusb shell (`USBLink`) reports it and
/// `USBSessionTracker` reads it: a value, so the session logic is tested without libusb.
package enum USBEvent: Sendable, Equatable {
    case arrived(USBDeviceLocation)
    case departed(USBDeviceLocation)
}
