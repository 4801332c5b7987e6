internal import CUSB
import PhoneCore
import Platform
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// Watches the phone host's USB bus for the board's gadget (its VID:PID) with libusb hotplug
/// callbacks: arrivals and departures with bus and address (PhoneCore's `USBEvent`, which the pure
/// `USBSessionTracker` reads), on a dedicated event thread that runs
/// `libusb_handle_events_timeout_completed` and sleeps in the kernel between events.
///
/// Registration uses `LIBUSB_HOTPLUG_ENUMERATE`, so a board already plugged in is reported as an
/// arrival right away (from `start`, on the calling thread). When libusb cannot watch (no hotplug
/// capability, `libusb_init` fails, no usbfs in a container), `start` says `.unmonitored` and
/// nothing is delivered: that is an expected setup, not an error.
package final class USBHotplugWatcher: Sendable {
    package let vendorID: UInt16
    package let productID: UInt16
    /// Checked before libusb is asked: without it (containers, CI) the host's devices are not there to watch.
    /// Only the directory: no node in it is ever opened (libusb reads each device from sysfs).
    package let deviceDirectory: String?
    private let running = Mutex<Session?>(nil)

    /// `deviceDirectory` nil skips the usbfs check (tests exercise libusb itself that way).
    package init(vendorID: UInt16, productID: UInt16, deviceDirectory: String? = "/dev/bus/usb") {
        self.vendorID = vendorID
        self.productID = productID
        self.deviceDirectory = deviceDirectory
    }

    deinit { stop() }

    /// Starts watching; `deliver` runs on libusb's event thread (and, for devices already present,
    /// on the caller's thread before `start` returns). A second call while running changes nothing.
    @discardableResult
    package func start(deliver: @escaping @Sendable (USBEvent) -> Void) -> USBMonitoring {
        running.withLock { session -> USBMonitoring in
            if session != nil { return .monitoring }
            if let deviceDirectory, access(deviceDirectory, F_OK) != 0 {
                return .unmonitored(reason: "no \(deviceDirectory) on this host")
            }
            guard LibUSB.supportsHotplug else {
                return .unmonitored(reason: "libusb \(LibUSB.version) has no hotplug support here")
            }
            switch Session.open(vendorID: vendorID, productID: productID, deliver: deliver) {
            case let .success(opened):
                session = opened
                return .monitoring
            case let .failure(problem):
                return .unmonitored(reason: problem.reason)
            }
        }
    }

    /// Stops the event thread and releases libusb; idempotent.
    package func stop() {
        let session = running.withLock { slot -> Session? in
            defer { slot = nil }
            return slot
        }
        session?.close()
    }
}

/// The callback's context: the deliver closure and this boot's name, reached from C through `Unmanaged`.
private final class CallbackBox: Sendable {
    let deliver: @Sendable (USBEvent) -> Void
    let keepRunning = Atomic<Bool>(true)
    /// Read once: device addresses restart at boot, so connection ids carry the boot.
    let boot = USBDeviceLocation.bootName(fromBootID: readBootID())

    init(deliver: @escaping @Sendable (USBEvent) -> Void) {
        self.deliver = deliver
    }
}

/// The kernel's random id of this boot, or "" when it cannot be read.
private func readBootID() -> String {
    guard let bytes = try? POSIXFileSystem().readFile(at: "/proc/sys/kernel/random/boot_id") else { return "" }
    return String(decoding: bytes, as: UTF8.self)
}

/// A libusb context with one registered hotplug callback and the thread handling its events.
private struct Session: @unchecked Sendable {  // the context pointer is used by the event thread and by close, in turn
    let context: OpaquePointer
    let handle: libusb_hotplug_callback_handle
    let box: Unmanaged<CallbackBox>
    let thread: JoinableThread

    static func open(
        vendorID: UInt16, productID: UInt16,
        deliver: @escaping @Sendable (USBEvent) -> Void
    ) -> Result<Session, OpenFailure> {
        var created: OpaquePointer?
        let rc = libusb_init(&created)
        guard rc == 0, let context = created else {
            return .failure(OpenFailure("libusb_init failed: \(LibUSBError(code: rc))"))
        }
        let box = Unmanaged.passRetained(CallbackBox(deliver: deliver))
        var handle = libusb_hotplug_callback_handle()
        let events = Int32(LIBUSB_HOTPLUG_EVENT_DEVICE_ARRIVED.rawValue | LIBUSB_HOTPLUG_EVENT_DEVICE_LEFT.rawValue)
        let registered = libusb_hotplug_register_callback(
            context, events, Int32(LIBUSB_HOTPLUG_ENUMERATE.rawValue), Int32(vendorID), Int32(productID),
            LIBUSB_HOTPLUG_MATCH_ANY, hotplugCallback, box.toOpaque(), &handle)
        guard registered == 0 else {
            libusb_exit(context)
            box.release()
            return .failure(OpenFailure("libusb_hotplug_register_callback failed: \(LibUSBError(code: registered))"))
        }
        let pointer = ContextPointer(context)
        let flag = box.takeUnretainedValue()
        guard let thread = JoinableThread.start({ runEvents(pointer, while: flag) }) else {
            libusb_hotplug_deregister_callback(context, handle)
            libusb_exit(context)
            box.release()
            return .failure(OpenFailure("could not start the USB event thread"))
        }
        return .success(Session(context: context, handle: handle, box: box, thread: thread))
    }

    /// Wakes the event thread (it also wakes by itself every 10 s), joins it, then releases
    /// libusb; after `libusb_exit` no callback can run, so the box is released last.
    func close() {
        box.takeUnretainedValue().keepRunning.store(false, ordering: .releasing)
        libusb_interrupt_event_handler(context)
        thread.join()
        libusb_hotplug_deregister_callback(context, handle)
        libusb_exit(context)
        box.release()
    }
}

/// The libusb context as the event thread sees it.
private struct ContextPointer: @unchecked Sendable {  // used only by the event thread until close joins it
    let raw: OpaquePointer
    init(_ raw: OpaquePointer) { self.raw = raw }
}

private func runEvents(_ context: ContextPointer, while box: CallbackBox) {
    while box.keepRunning.load(ordering: .acquiring) {
        // The timeout bounds how long a missed interrupt could delay shutdown; it is not a poll:
        // the thread sleeps in the kernel until an event, the interrupt or the timeout.
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        libusb_handle_events_timeout_completed(context.raw, &timeout, nil)
    }
}

/// Runs on libusb's event thread (or in register, for ENUMERATE). Only reads the device's bus and
/// address, which is allowed inside a hotplug callback; returns 0 to stay registered.
private let hotplugCallback: libusb_hotplug_callback_fn = { _, device, event, userData in
    guard let device, let userData else { return 0 }
    let box = Unmanaged<CallbackBox>.fromOpaque(userData).takeUnretainedValue()
    let location = USBDeviceLocation(
        boot: box.boot, bus: libusb_get_bus_number(device), address: libusb_get_device_address(device))
    if event == LIBUSB_HOTPLUG_EVENT_DEVICE_ARRIVED {
        box.deliver(.arrived(location))
    } else if event == LIBUSB_HOTPLUG_EVENT_DEVICE_LEFT {
        box.deliver(.departed(location))
    }
    return 0
}

/// Why watching could not start, in words for the log.
private struct OpenFailure: Error {
    let reason: String
    init(_ reason: String) { self.reason = reason }
}
