import Testing

@testable import BluetoothHCI
@testable import DBus
@testable import ServiceManager
@testable import USBLink

/// Each C library is linked for real: these call into it through the one shell module that imports it.
@Suite("C libraries")
struct CLibrarySmokeTests {
    @Test func libdbusReportsItsVersionAndValidatesNames() {
        #expect(DBusLibrary.version.hasPrefix("1."))
        #expect(DBusLibrary.isValidBusName("org.bluez"))
        #expect(!DBusLibrary.isValidBusName("no dots here!"))
        #expect(DBusLibrary.isValidObjectPath("/org/bluez/hci0"))
        #expect(!DBusLibrary.isValidObjectPath("org/bluez/"))
    }

    @Test func libusbInitialisesAndReportsItsVersion() throws {
        #expect(LibUSB.version.hasPrefix("1."))
        // libusb_init succeeds even without /dev/bus/usb (no devices is not an error).
        try LibUSB.probeContext().get()
    }

    /// The address rule is pure now (`NetworkAddressTests.BluetoothAddressTests` holds what this suite checked of
    /// it); libbluetooth still answers for the kernel's adapters, and no machine has an hci99.
    @Test func libbluetoothFindsNoAdapterThatIsNotThere() {
        switch HCIAdapter.named("hci99") {
        case .success(let adapter): Issue.record("hci99 reported: \(adapter)")
        case .failure(let error): #expect(!"\(error)".isEmpty)
        }
    }

    @Test func libsystemdAnswersOutsideAServiceManager() {
        // Not run as a unit in tests: NOTIFY_SOCKET is unset, so sd_notify reports no receiver.
        #expect(Systemd.notify("STATUS=smoke test") == false)
        _ = Systemd.isBooted  // must not crash in a container without systemd
        #expect(Systemd.watchdogIntervalMicroseconds == nil)
    }

    /// A line feed in the status (a BlueZ error in it) cannot end the assignment and send one of its own.
    @Test func theStatusIsOneAssignment() {
        #expect(Systemd.statusAssignment("2 tasks\nREADY=1\nWATCHDOG=1") == #"STATUS=2 tasks\nREADY=1\nWATCHDOG=1"#)
        #expect(Systemd.statusAssignment("no tasks, no Wake yet") == "STATUS=no tasks, no Wake yet")
    }
}
