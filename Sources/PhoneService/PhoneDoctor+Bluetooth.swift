import BlueZ
import DBusModel
import Doctor
import PhoneCore

/// Wakes over BLE: bluetoothd on the system bus, the configured adapter, and the bond with the board
/// (whose address the board tells over the cable, or `[wake] address` names).
extension PhoneDoctor {
    static let bondFix =
        "keep the board plugged in with aiden-phone running: it pairs over the cable by itself (its card says "
        + "why when it cannot); by hand: docs/bluetooth.md, \"Bonding the phone host with bluetoothctl\""

    static func bluetooth(
        adapter: String, configuredAddress: String?, board: BoardResponse?, bluetoothd: BluetoothdView
    ) -> [DoctorFinding] {
        let objects: DBusManagedObjects
        switch bluetoothd {
        case let .unreachable(why):
            return [
                .problem(
                    "the D-Bus system bus is not reachable (\(why)): no Wakes over BLE",
                    fix: "systemctl start dbus")
            ]
        case .notRunning:
            return [
                .problem(
                    "bluetoothd is not running (org.bluez has no owner on the system bus): no Wakes over BLE",
                    fix: "systemctl enable --now bluetooth")
            ]
        case let .running(tree):
            objects = tree
        }
        var findings: [DoctorFinding] = []
        let state = AdapterState(path: BlueZNames.adapterPath(adapter), in: objects)
        guard state.isPresent else {
            return [
                .problem(
                    "bluetoothd runs but has no adapter \(adapter)",
                    fix: "check 'bluetoothctl list' and the controller's driver or firmware ('dmesg'); set [wake] "
                        + "adapter to an adapter that exists")
            ]
        }
        let named = "adapter \(adapter)" + (state.address.map { " (\(BoardText.printable($0, limit: 17)))" } ?? "")
        if state.powered {
            findings.append(.ok("bluetoothd runs; \(named) is powered"))
        } else {
            findings.append(
                .problem(
                    "bluetoothd runs, but \(named) is powered off",
                    fix: "bluetoothctl power on (and AutoEnable=true in /etc/bluetooth/main.conf)"))
        }
        let answer = board.flatMap { response -> BoardBluetoothAnswer? in
            guard case let .answered(200, _, body, _) = response else { return nil }
            return BoardBluetoothAnswer(body: body)
        }
        if let transport = answer?.transport, transport != "bluez" {
            findings.append(
                .problem(
                    "the board sends its Wakes over \(transport) ([wake] transport there), but this host waits for "
                        + "them over BLE",
                    fix: "set the same [wake] transport on both: \"bluez\" on the board, or \"loopback\" here for a "
                        + "board on this machine"))
        }
        let devices = boardDevices(adapter: adapter, in: objects)
        if let configuredAddress {
            if let reported = answer?.address, reported != configuredAddress {
                findings.append(
                    .problem(
                        "[wake] address \(configuredAddress) is not the board's Bluetooth address \(reported) (as "
                            + "the board reports it)",
                        fix: "set [wake] address = \"\(reported)\", or \"\" to find the board by its Wake service"))
            }
            findings.append(bond(configuredAddress, devices: devices))
        } else if let reported = answer?.address {
            findings.append(bond(reported, devices: devices))
        } else {
            // The board did not say (unreachable, no adapter there): the devices bluetoothd knows with the Wake
            // service stand in for it.
            let why =
                answer.map { "the board reports no Bluetooth address" + ($0.problem.map { " (\($0))" } ?? "") }
                ?? "the board did not tell its Bluetooth address (GET /api/bluetooth/status)"
            let candidates = devices.filter { WakeGATT.containsWakeService($0.device.uuids) }
            if candidates.isEmpty {
                findings.append(
                    .problem(
                        "\(why), and bluetoothd on \(adapter) knows no device with the Wake service: no bond with "
                            + "a board",
                        fix: "connect the board (it tells its address over the cable), or set [wake] address; then "
                            + bondFix))
            } else {
                findings += candidates.map { bond($0.address, devices: devices) }
            }
        }
        return findings
    }

    /// The bond with the board at `address`: bluetoothd must know it, Paired and Trusted.
    static func bond(_ address: String, devices: [(address: String, device: RemoteDevice)]) -> DoctorFinding {
        guard let device = devices.first(where: { $0.address == address })?.device else {
            return .problem(
                "no bond with the board \(address): bluetoothd does not know it", fix: bondFix)
        }
        guard device.paired else {
            return .problem(
                "no bond with the board \(address): bluetoothd knows it but holds no bond (Paired: no)", fix: bondFix)
        }
        guard device.trusted else {
            return .problem(
                "the board \(address) is paired but not trusted", fix: "bluetoothctl trust \(address)")
        }
        return .ok("bonded with the board \(address) (Paired, Trusted)")
    }

    /// The `Device1` objects under the adapter, by upper-case address (a device without a valid address is
    /// left out: it cannot be the board).
    static func boardDevices(
        adapter: String, in objects: DBusManagedObjects
    ) -> [(address: String, device: RemoteDevice)] {
        let prefix = BlueZNames.adapterPath(adapter).rawValue + "/"
        return objects.keys.sorted { $0.rawValue < $1.rawValue }.compactMap { path in
            guard path.rawValue.hasPrefix(prefix), let properties = objects[path]?[BlueZNames.device] else {
                return nil
            }
            let device = RemoteDevice(properties: properties)
            guard let address = device.bluetoothAddress?.description else { return nil }
            return (address, device)
        }
    }
}
