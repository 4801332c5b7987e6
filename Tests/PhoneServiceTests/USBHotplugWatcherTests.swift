import Foundation
import PhoneService
import Testing
import USBLink

/// The libusb watcher on a host without the board (CI, containers): it must start and stop
/// cleanly, report what it can do, and deliver nothing.
@Suite struct USBHotplugWatcherTests {
    @Test func withoutUsbfsItSaysUnmonitored() {
        let watcher = USBHotplugWatcher(vendorID: 0x1d6b, productID: 0x0104, deviceDirectory: "/nonexistent/usb")
        let result = watcher.start { _ in Issue.record("no event expected") }
        #expect(result == .unmonitored(reason: "no /nonexistent/usb on this host"))
        watcher.stop()
    }

    @Test func libusbStartsAndStopsWithNoDevicePresent() {
        // A VID:PID no real device has, so even a host with USB buses reports nothing.
        let watcher = USBHotplugWatcher(vendorID: 0xfffe, productID: 0xfffd, deviceDirectory: nil)
        let events = LockedList()
        let result = watcher.start { events.append("\($0)") }
        switch result {
        case .monitoring:
            #expect(LibUSB.supportsHotplug)
            #expect(watcher.start { _ in } == .monitoring, "a second start changes nothing")
        case let .unmonitored(reason):
            #expect(!reason.isEmpty)
        }
        let started = Date()
        watcher.stop()
        watcher.stop()
        #expect(Date().timeIntervalSince(started) < 5, "stop interrupts the event thread")
        #expect(events.items.isEmpty)
    }
}

final class LockedList: @unchecked Sendable {  // guarded by `lock`
    private let lock = NSLock()
    private var storage: [String] = []
    func append(_ item: String) { lock.withLock { storage.append(item) } }
    var items: [String] { lock.withLock { storage } }
}

/// The start line names the ids the watcher waits for, the way lsusb and udev write them.
@Suite struct USBIdentifierTextTests {
    @Test func idsAreFourLowercaseHexDigitsEach() {
        #expect(PhoneDaemon.usbID(0x1d6b, 0x0104) == "1d6b:0104")
        #expect(PhoneDaemon.usbID(0x0001, 0xABCD) == "0001:abcd")
    }
}
