import PhoneCore
import Testing

/// Arrivals and departures in the orders libusb may report them, and the sessions they make.
@Suite struct USBSessionTrackerTests {
    enum Step {
        case arrive(UInt8, UInt8)
        case depart(UInt8, UInt8)
    }

    static let cases: [(String, [Step], [String], String?)] = [
        ("a device arrives: a session", [.arrive(1, 7)], ["up usb-1-7"], "usb-1-7"),
        ("it leaves: link down", [.arrive(1, 7), .depart(1, 7)], ["up usb-1-7", "down usb-1-7"], nil),
        (
            "re-enumerated (new address): a new session",
            [.arrive(1, 7), .depart(1, 7), .arrive(1, 8)], ["up usb-1-7", "down usb-1-7", "up usb-1-8"], "usb-1-8"
        ),
        ("ENUMERATE reports an arrival twice: one session", [.arrive(1, 7), .arrive(1, 7)], ["up usb-1-7"], "usb-1-7"),
        ("a departure without an arrival: nothing", [.depart(1, 7)], [], nil),
        ("a departure of another device: nothing", [.arrive(1, 7), .depart(2, 3)], ["up usb-1-7"], "usb-1-7"),
        ("a second board waits as a spare", [.arrive(1, 7), .arrive(2, 3)], ["up usb-1-7"], "usb-1-7"),
        (
            "the spare takes over when the first leaves",
            [.arrive(1, 7), .arrive(2, 3), .depart(1, 7)], ["up usb-1-7", "down usb-1-7", "up usb-2-3"], "usb-2-3"
        ),
        (
            "a spare that leaves first changes nothing",
            [.arrive(1, 7), .arrive(2, 3), .depart(2, 3), .depart(1, 7)], ["up usb-1-7", "down usb-1-7"], nil
        ),
        (
            "same address on another bus is another device",
            [.arrive(1, 7), .depart(2, 7)], ["up usb-1-7"], "usb-1-7"
        ),
    ]

    @Test(arguments: cases)
    func sessions(_ name: String, _ steps: [Step], _ expected: [String], _ current: String?) {
        var tracker = USBSessionTracker()
        var changes: [String] = []
        for step in steps {
            let produced: [USBSessionTracker.Change]
            switch step {
            case let .arrive(bus, address): produced = tracker.arrived(USBDeviceLocation(bus: bus, address: address))
            case let .depart(bus, address): produced = tracker.departed(USBDeviceLocation(bus: bus, address: address))
            }
            changes += produced.map {
                switch $0 {
                case let .linkUp(id): "up \(id)"
                case let .linkDown(id): "down \(id)"
                }
            }
        }
        #expect(changes == expected, "\(name)")
        #expect(tracker.current?.connectionID == current, "\(name)")
        #expect(tracker.isUp == (current != nil))
    }
}

/// Device addresses start again at every boot; the connection id carries the boot, so the first
/// plug-in after a reboot is a new session (and alerts), while a client restart within a boot is not.
@Suite struct USBConnectionIDTests {
    @Test func theBootIsPartOfTheID() {
        let before = USBDeviceLocation(boot: "6f9c01ab", bus: 1, address: 7)
        let afterReboot = USBDeviceLocation(boot: "d2e4a0c3", bus: 1, address: 7)
        #expect(before.connectionID == "usb-6f9c01ab-1-7")
        #expect(before.connectionID != afterReboot.connectionID)
        #expect(before.connectionID == USBDeviceLocation(boot: "6f9c01ab", bus: 1, address: 7).connectionID)
        #expect(USBDeviceLocation(bus: 1, address: 7).connectionID == "usb-1-7", "no boot id: bus and address")
    }

    @Test(arguments: [
        ("6f9c01ab-5e2d-4c1b-9a3e-2b7f0c8d4e61\n", "6f9c01ab"),
        ("6f9c01ab-5e2d-4c1b-9a3e-2b7f0c8d4e61", "6f9c01ab"),
        ("", ""), ("\n", ""), ("6F9C01AB-5e2d", ""), ("6f9c01-ab", ""), ("6f9c01abz-1", ""),
        ("../../etc/passwd", ""),
    ])
    func bootNamesComeOnlyFromABootID(text: String, expected: String) {
        #expect(USBDeviceLocation.bootName(fromBootID: text) == expected)
    }
}
