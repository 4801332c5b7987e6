import Platform

/// One USB device as sysfs shows it (`/sys/bus/usb/devices/1-1`), for `aiden-phone doctor`: its ids and
/// manufacturer (which the udev rule matches), its bus and device numbers (which name its node under
/// `/dev/bus/usb`) and the network interfaces of its USB interfaces (the ECM link's kernel name). Read with
/// `scan`; everything else is plain values. Nobody on the phone host opens the node: libusb's hotplug reads
/// the device from sysfs and hears of it over udev's netlink monitor.
package struct USBDeviceRecord: Sendable, Equatable {
    /// The sysfs name, `1-1` or `3-2.4`: the port path.
    package var name: String
    package var vendorID: UInt16
    package var productID: UInt16
    /// The device's manufacturer string descriptor, nil when it has none.
    package var manufacturer: String?
    package var busNumber: Int
    package var deviceNumber: Int
    package var networkInterfaces: [String]
    package var node: String

    package init(
        name: String, vendorID: UInt16, productID: UInt16, manufacturer: String?, busNumber: Int,
        deviceNumber: Int, networkInterfaces: [String] = [], node: String? = nil
    ) {
        self.name = name
        self.vendorID = vendorID
        self.productID = productID
        self.manufacturer = manufacturer
        self.busNumber = busNumber
        self.deviceNumber = deviceNumber
        self.networkInterfaces = networkInterfaces
        self.node = node ?? Self.nodePath(bus: busNumber, device: deviceNumber)
    }

    /// `/dev/bus/usb/001/005` for bus 1, device 5 (usbfs names, zero-padded to three digits).
    package static func nodePath(bus: Int, device: Int, root: String = "/dev/bus/usb") -> String {
        func padded(_ number: Int) -> String {
            let digits = String(number)
            return String(repeating: "0", count: max(0, 3 - digits.count)) + digits
        }
        return "\(root)/\(padded(bus))/\(padded(device))"
    }

    /// The devices under `root` (sysfs' `/sys/bus/usb/devices`) with `vendorID:productID`, sorted by name.
    /// Entries that cannot be read, or whose files do not parse, are skipped: sysfs changes under the reader
    /// when a device leaves.
    package static func scan(
        vendorID: UInt16, productID: UInt16, root: String = "/sys/bus/usb/devices",
        nodes: String = "/dev/bus/usb", fileSystem: POSIXFileSystem = POSIXFileSystem()
    ) -> [USBDeviceRecord] {
        guard let names = try? fileSystem.contentsOfDirectory(at: root) else { return [] }
        func value(_ path: String) -> String? {
            guard let bytes = try? fileSystem.readFile(at: path) else { return nil }
            let text = String(decoding: bytes, as: UTF8.self)
            return String(text.prefix { $0 != "\n" })
        }
        // Devices only: interfaces are named `1-1:1.0`.
        return names.filter { !$0.contains(":") }.sorted().compactMap { name -> USBDeviceRecord? in
            let directory = root + "/" + name
            guard let vendor = value(directory + "/idVendor").flatMap({ UInt16($0, radix: 16) }), vendor == vendorID,
                let product = value(directory + "/idProduct").flatMap({ UInt16($0, radix: 16) }), product == productID,
                let bus = value(directory + "/busnum").flatMap({ Int($0) }),
                let device = value(directory + "/devnum").flatMap({ Int($0) })
            else { return nil }
            let interfaces = ((try? fileSystem.contentsOfDirectory(at: directory)) ?? [])
                .filter { $0.hasPrefix(name + ":") }.sorted()
                .flatMap { (try? fileSystem.contentsOfDirectory(at: directory + "/" + $0 + "/net")) ?? [] }
            return USBDeviceRecord(
                name: name, vendorID: vendor, productID: product, manufacturer: value(directory + "/manufacturer"),
                busNumber: bus, deviceNumber: device, networkInterfaces: interfaces.sorted(),
                node: nodePath(bus: bus, device: device, root: nodes))
        }
    }
}
