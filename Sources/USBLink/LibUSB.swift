internal import CUSB

/// Facts about the linked libusb-1.0, and whether it can watch for hotplug events.
package enum LibUSB {
    /// The libusb version, as "major.minor.micro".
    package static var version: String {
        guard let v = libusb_get_version() else { return "unknown" }
        return "\(v.pointee.major).\(v.pointee.minor).\(v.pointee.micro)"
    }

    /// Whether this libusb build supports hotplug callbacks (the phone watches plug/unplug with them).
    package static var supportsHotplug: Bool {
        libusb_has_capability(UInt32(LIBUSB_CAP_HAS_HOTPLUG.rawValue)) != 0
    }

    /// Creates and releases a context without scanning devices: proves the library initialises here
    /// (in a container or CI with no /dev/bus/usb), returning the libusb error name on failure.
    package static func probeContext() -> Result<Void, LibUSBError> {
        var context: OpaquePointer?
        let rc = libusb_init(&context)
        guard rc == 0 else { return .failure(LibUSBError(code: rc)) }
        libusb_exit(context)
        return .success(())
    }
}

/// A libusb error code with its symbolic name.
package struct LibUSBError: Error, Equatable, CustomStringConvertible {
    package let code: Int32
    package var name: String { String(cString: libusb_error_name(code)) }
    package var description: String { "libusb: \(name) (\(code))" }
}
