internal import CBluetooth
import NetworkAddress

#if canImport(Glibc)
import Glibc
#endif

/// A local Bluetooth controller as the kernel reports it (libbluetooth's `hci_devinfo`), for
/// `aiden-board doctor`: is there an adapter at all, before asking bluetoothd about it.
///
/// Read-only: it opens an HCI socket only to ask, never to send commands (D-Bus is the only way this
/// project talks to Bluetooth; raw HCI sockets are also refused inside network namespaces).
package struct HCIAdapter: Sendable, Equatable {
    /// `hci0`.
    package var name: String
    package var index: Int
    package var address: BluetoothAddress?
    /// The controller is up (HCI_UP): bluetoothd powers it with `Powered = true`.
    package var isUp: Bool

    package init(name: String, index: Int, address: BluetoothAddress?, isUp: Bool) {
        self.name = name
        self.index = index
        self.address = address
        self.isUp = isUp
    }

    /// The adapter called `name` (e.g. `hci0`).
    package static func named(_ name: String) -> Result<HCIAdapter, HCIAdapterError> {
        if let failure = probeKernel() { return .failure(failure) }
        let index = hci_devid(name)
        guard index >= 0 else {
            return .failure(errno == ENODEV || errno == EINVAL ? .notFound(name) : .system("hci_devid(\(name))", errno))
        }
        return info(index: index)
    }

    /// The first adapter the kernel routes to (`hci_get_route`), when no name is configured.
    package static func first() -> Result<HCIAdapter, HCIAdapterError> {
        if let failure = probeKernel() { return .failure(failure) }
        let index = hci_get_route(nil)
        guard index >= 0 else { return .failure(.notFound("any adapter")) }
        return info(index: index)
    }

    private static func info(index: Int32) -> Result<HCIAdapter, HCIAdapterError> {
        var info = hci_dev_info()
        guard aiden_hci_devinfo(index, &info) == 0 else { return .failure(.system("hci_devinfo(\(index))", errno)) }
        let name = withUnsafeBytes(of: info.name) { raw in
            String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
        }
        // bdaddr_t holds the address least significant byte first.
        let b = info.bdaddr.b
        let address = BluetoothAddress(bytes: [b.5, b.4, b.3, b.2, b.1, b.0])
        let up = withUnsafePointer(to: &info.flags) { aiden_hci_test_bit(Int32(HCI_UP), $0) } != 0
        return .success(HCIAdapter(name: name, index: Int(index), address: address, isUp: up))
    }

    /// Whether this kernel has Bluetooth sockets at all (AF_BLUETOOTH), so "no adapter" is told apart from
    /// "no Bluetooth in this kernel" and "not allowed here".
    private static func probeKernel() -> HCIAdapterError? {
        let fd = socket(AF_BLUETOOTH, Int32(SOCK_RAW.rawValue) | Int32(SOCK_CLOEXEC.rawValue), BTPROTO_HCI)
        guard fd < 0 else {
            close(fd)
            return nil
        }
        switch errno {
        case EAFNOSUPPORT, EPROTONOSUPPORT: return .noBluetoothInKernel
        case EPERM, EACCES: return .notPermitted
        default: return .system("socket(AF_BLUETOOTH)", errno)
        }
    }
}

/// Why no adapter facts could be read.
package enum HCIAdapterError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The kernel has no Bluetooth support (no AF_BLUETOOTH: module `bluetooth` missing or not built).
    case noBluetoothInKernel
    /// Bluetooth sockets are refused here (a network namespace, a seccomp filter, a container).
    case notPermitted
    case notFound(String)
    case system(String, Int32)

    package var description: String {
        switch self {
        case .noBluetoothInKernel: "no Bluetooth in this kernel (AF_BLUETOOTH is not supported)"
        case .notPermitted: "Bluetooth sockets are not permitted here (network namespace or sandbox)"
        case .notFound(let name): "no Bluetooth adapter \(name)"
        case .system(let call, let code): "\(call) failed: \(String(cString: strerror(code)))"
        }
    }
}
