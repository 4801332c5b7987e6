import BlueZ
import BluetoothHCI
import DBus
import Doctor
import FoundationEssentials
import HTTPClient
import HTTPClientCore
import Platform

/// `aiden-board doctor` for `[wake] transport = "bluez"`: the adapter in the kernel (libbluetooth), bluetoothd
/// on the system bus (its object tree: adapter, power, GATT and advertising managers), and, when aiden-board
/// runs, what it says about its registration (`/v1/status` on the agent socket). One finding, the worst first,
/// with the fix for it.
package enum BlueZDoctor {
    /// What bluetoothd shows on the system bus.
    package enum BusView: Sendable, Equatable {
        case unreachable(String)
        case bluezNotRunning
        /// bluetoothd runs; the adapter's state in its tree (absent: no interfaces).
        case adapter(AdapterState)
    }

    /// What the running daemon reports (`/v1/status` → `bluetooth`); nil when it does not answer.
    package struct DaemonView: Sendable, Equatable, Decodable {
        package var gattRegistered: Bool?
        package var advertising: Bool?
        package var wakeSubscriber: Bool?
        package var problem: String?

        package init(gattRegistered: Bool?, advertising: Bool?, wakeSubscriber: Bool?, problem: String?) {
            self.gattRegistered = gattRegistered
            self.advertising = advertising
            self.wakeSubscriber = wakeSubscriber
            self.problem = problem
        }

        enum CodingKeys: String, CodingKey {
            case advertising, problem
            case gattRegistered = "gatt_registered"
            case wakeSubscriber = "wake_subscriber"
        }
    }

    /// Looks at everything (bounded: each bus call has a 2 s timeout) and judges.
    package static func examine(
        adapter: String, agentSocket: String,
        busAddress: DBusConnection.Address = .system
    ) -> DoctorFinding {
        let hci = HCIAdapter.named(adapter)
        if case .failure(.noBluetoothInKernel) = hci {
            return evaluate(adapter: adapter, hci: hci, bus: nil, daemon: nil)
        }
        let bus = Blocking.run { await busView(adapter: adapter, address: busAddress) }
        return evaluate(adapter: adapter, hci: hci, bus: bus, daemon: daemonView(agentSocket: agentSocket))
    }

    /// The judgement, from what was seen (pure, tested with tables).
    package static func evaluate(
        adapter: String, hci: Result<HCIAdapter, HCIAdapterError>, bus: BusView?,
        daemon: DaemonView?
    ) -> DoctorFinding {
        var seen: [String] = []
        switch hci {
        case let .success(info):
            seen.append(
                "adapter \(adapter) present (\(info.address.map { "\($0)" } ?? "no address"), "
                    + "\(info.isUp ? "up" : "down"))")
        case .failure(.noBluetoothInKernel):
            return problem(
                "wake transport bluez: no Bluetooth in this kernel",
                fix: "boot a kernel with Bluetooth (modules bluetooth and the controller's driver), "
                    + "or set [wake] transport = \"loopback\"")
        case let .failure(.notFound(name)):
            return problem(
                "wake transport bluez: the kernel has Bluetooth but no adapter \(name)",
                fix: "check 'btmgmt info' and the controller's driver or firmware; set [wake] adapter "
                    + "to an adapter that exists")
        case let .failure(error):
            seen.append("adapter facts unavailable (\(error))")
        }
        switch bus {
        case nil:
            break
        case let .unreachable(why):
            return problem(
                seen + ["the D-Bus system bus is not reachable (\(why))"],
                fix: "start the system bus (systemctl start dbus)")
        case .bluezNotRunning:
            return problem(
                seen + ["bluetoothd is not running (org.bluez has no owner on the system bus)"],
                fix: "systemctl enable --now bluetooth")
        case let .adapter(state):
            guard state.isPresent else {
                return problem(
                    seen + ["bluetoothd runs but does not list \(adapter)"],
                    fix: "see 'journalctl -u bluetooth' and 'btmgmt info'; set [wake] adapter")
            }
            let missing = BlueZNames.peripheralAdapterInterfaces.subtracting(state.interfaces).sorted()
            guard missing.isEmpty else {
                return problem(
                    seen + ["bluetoothd offers no \(missing.joined(separator: ", ")) on \(adapter)"],
                    fix: "use a Bluetooth LE controller and bluetoothd 5.50 or later; "
                        + "see 'journalctl -u bluetooth'")
            }
            guard state.powered else {
                return problem(
                    seen + ["bluetoothd runs, \(adapter) is powered off"],
                    fix: "bluetoothctl power on (and AutoEnable=true in /etc/bluetooth/main.conf)")
            }
            seen.append("bluetoothd runs, \(adapter) powered with GATT and LE advertising")
        }
        guard let daemon else {
            return .info(
                "wake transport bluez: "
                    + (seen + ["aiden-board is not running (registration not checked)"]).joined(separator: "; "))
        }
        guard daemon.gattRegistered == true, daemon.advertising == true else {
            return problem(
                seen + [
                    "aiden-board runs but is not registered with bluetoothd"
                        + (daemon.problem.map { ": \($0)" } ?? "")
                ],
                fix: "see 'journalctl -u aiden-board' and 'journalctl -u bluetooth'")
        }
        seen.append(
            "Wake service registered and advertised, phone subscribed: "
                + (daemon.wakeSubscriber == true ? "yes" : "no"))
        return .ok("wake transport bluez: " + seen.joined(separator: "; "))
    }

    private static func problem(_ parts: [String], fix: String) -> DoctorFinding {
        problem("wake transport bluez: " + parts.joined(separator: "; "), fix: fix)
    }

    private static func problem(_ message: String, fix: String) -> DoctorFinding {
        .problem(message, fix: fix)
    }

    // MARK: Looking

    package static func busView(adapter: String, address: DBusConnection.Address) async -> BusView {
        let connection: DBusConnection
        do {
            connection = try await DBusConnection.connect(to: address, timeout: .seconds(2))
        } catch {
            return .unreachable("\(error)")
        }
        defer { connection.close() }
        switch await BluetoothdView.look(on: connection) {
        case let .unreachable(why): return .unreachable(why)
        case .notRunning: return .bluezNotRunning
        case let .running(objects): return .adapter(AdapterState(path: BlueZNames.adapterPath(adapter), in: objects))
        }
    }

    /// `GET /v1/status` on the agent socket (2 s bound); the `bluetooth` member, or nil.
    package static func daemonView(agentSocket path: String) -> DaemonView? {
        struct Status: Decodable { let bluetooth: DaemonView? }
        guard let body = statusBody(agentSocket: path) else { return nil }
        return (try? JSONDecoder().decode(Status.self, from: body))?.bluetooth
    }

    /// The body of `GET /v1/status` on the agent socket, as aidenctl asks for it, or nil when nothing answers with
    /// a 200 within 2 s.
    static func statusBody(agentSocket path: String) -> Data? {
        let request = HTTPClientRequest(
            url: "http://localhost/v1/status", unixSocketPath: path,
            timeout: .init(connectMilliseconds: 2_000, totalMilliseconds: 2_000))
        guard let answer = try? HTTPClient(maxResponseBytes: statusLimit).perform(request), answer.status == 200
        else { return nil }
        return Data(answer.body)
    }

    /// More than any status the daemon sends; a larger answer is not the daemon's.
    static let statusLimit = 256 * 1024
}
