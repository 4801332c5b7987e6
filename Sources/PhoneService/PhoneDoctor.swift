import BlueZ
import Configuration
import DesktopNotifications
import Doctor
import NetworkAddress
import PhoneCore
import USBLink

/// `aiden-phone doctor`: the board's ECM interface and its address, another network in the board's
/// subnet, the udev rule and the board's USB device, libusb hotplug, the board's `/status`, bluetoothd and
/// the bond with the board, the session bus and a notification server. One line per finding with its fix;
/// exit 1 when any is a problem (`DoctorFinding.exitStatus`).
///
/// A thin shell (`PhoneDoctor+Looking`) gathers `Facts`, plain values; `findings(_:)` judges them and is
/// pure, tested with tables. Looking reads and asks but changes nothing: two GETs to the board, bounded
/// D-Bus calls, a libusb hotplug registration that is released at once.
package enum PhoneDoctor {
    /// Everything the judgement needs, seen once.
    package struct Facts: Sendable {
        /// The file read, or (`usedDefaults`) the places looked in.
        package var configPath: String
        /// No file at the standard places: the built-in defaults apply.
        package var usedDefaults: Bool
        package var configuration: PhoneConfiguration
        /// The state directory the client uses (`[state] directory`, else `PhonePaths`).
        package var statePath: String
        package var stateDirectory: DirectoryAccess
        package var user: String
        package var interfaces: LocalInterfaces
        /// /proc/net/route; nil when unreadable.
        package var routes: [KernelRoute]?
        /// The udev rule file udev uses (the first one by its precedence), nil when none is installed.
        package var udevRule: InstalledFile?
        /// sysfs' USB devices with `[usb] vendor_id:product_id`.
        package var usbDevices: [USBDeviceRecord]
        /// What a hotplug watcher's start said, and how many matching devices it enumerated; nil when not
        /// tried (the board is on loopback, as the daemon then does not watch either).
        package var hotplug: Hotplug?
        /// `GET /status`.
        package var status: BoardResponse
        /// `GET /api/bluetooth/status`; nil when not asked (`[wake] transport = "loopback"`, or `/status` got no
        /// answer: each try may take the whole timeout).
        package var bluetoothStatus: BoardResponse?
        /// The system bus' bluetoothd; nil when not asked (`[wake] transport = "loopback"`).
        package var bluetoothd: BluetoothdView?
        package var session: SessionView

        package init(
            configPath: String, usedDefaults: Bool = false, configuration: PhoneConfiguration,
            statePath: String = PhonePaths.systemStateDirectory, stateDirectory: DirectoryAccess = .writable,
            user: String = "tester",
            interfaces: LocalInterfaces = LocalInterfaces(entries: []), routes: [KernelRoute]? = [],
            udevRule: InstalledFile? = nil, usbDevices: [USBDeviceRecord] = [], hotplug: Hotplug? = nil,
            status: BoardResponse, bluetoothStatus: BoardResponse? = nil, bluetoothd: BluetoothdView? = nil,
            session: SessionView = SessionView(location: .none)
        ) {
            self.configPath = configPath
            self.usedDefaults = usedDefaults
            self.configuration = configuration
            self.statePath = statePath
            self.stateDirectory = stateDirectory
            self.user = user
            self.interfaces = interfaces
            self.routes = routes
            self.udevRule = udevRule
            self.usbDevices = usbDevices
            self.hotplug = hotplug
            self.status = status
            self.bluetoothStatus = bluetoothStatus
            self.bluetoothd = bluetoothd
            self.session = session
        }
    }

    /// A file found on disk, with its text.
    package struct InstalledFile: Sendable, Equatable {
        package var path: String
        package var text: String

        package init(path: String, text: String) {
            self.path = path
            self.text = text
        }
    }

    package struct Hotplug: Sendable, Equatable {
        package var monitoring: USBMonitoring
        package var libraryVersion: String
        /// Matching devices the registration enumerated (a board plugged in before the watcher started).
        package var enumerated: Int

        package init(monitoring: USBMonitoring, libraryVersion: String, enumerated: Int = 0) {
            self.monitoring = monitoring
            self.libraryVersion = libraryVersion
            self.enumerated = enumerated
        }
    }

    /// The session bus and who owns `org.freedesktop.Notifications` on it.
    package struct SessionView: Sendable, Equatable {
        package enum Notifications: Sendable, Equatable {
            /// The bus did not take the connection; the reason in words.
            case busUnreachable(String)
            /// Nobody answers `GetServerInformation` (and the bus cannot start anyone); the D-Bus error name.
            case noServer(String)
            /// Name, vendor and version, as `GetServerInformation` says.
            case server(String)
        }

        package var location: SessionBusLocation
        /// nil when there is no bus to ask.
        package var notifications: Notifications?

        package init(location: SessionBusLocation, notifications: Notifications? = nil) {
            self.location = location
            self.notifications = notifications
        }
    }

    /// The interface systemd/network/70-aiden-board.link gives the board's ECM link on this host.
    package static let ecmInterface = "aidenboard0"
    /// The board's USB manufacturer string (the gadget's), which udev/70-aiden-phone.rules also matches: it
    /// tells the board from other gadgets with the same Linux Foundation ids.
    package static let boardManufacturer = "AidenBridge"
    package static let udevRuleName = "70-aiden-phone.rules"
    /// Where udev reads rules, highest precedence first: a file in an earlier directory hides the same name
    /// in a later one.
    package static let udevRuleDirectories = [
        "/etc/udev/rules.d", "/run/udev/rules.d", "/usr/local/lib/udev/rules.d", "/usr/lib/udev/rules.d",
        "/lib/udev/rules.d",
    ]

    /// The judgement: every finding, in the order a person fixes them (configuration, the cable and its
    /// address, permissions, the board's answer, Bluetooth, the desktop).
    package static func findings(_ facts: Facts) -> [DoctorFinding] {
        checks(facts).map(\.finding)
    }

    /// The findings, each with the name of its check (`doctor --json`).
    package static func checks(_ facts: Facts) -> [DoctorCheck] {
        let configuration = facts.configuration
        var checks: [DoctorCheck] = [
            DoctorCheck(
                "configuration",
                facts.usedDefaults
                    ? .info("no \(facts.configPath): the built-in defaults apply")
                    : .ok("configuration \(facts.configPath) is valid")),
            DoctorCheck(
                "state_directory",
                facts.stateDirectory.finding(
                    stateDirectory: facts.statePath,
                    fix: "run aiden-phone as the user the directory belongs to (the system unit runs as 'aiden'), "
                        + "or set [state] directory to one \(facts.user) can write")),
        ]
        switch boardAddress(configuration.board.url) {
        case nil:
            checks.append(
                DoctorCheck(
                    "usb_link",
                    .info(
                        "the board is on loopback (\(configuration.board.url)): no USB link, udev rule, USB device "
                            + "or hotplug to check")))
        case let address?:
            let link = ecmLink(
                board: address, interfaces: facts.interfaces, devices: facts.usbDevices,
                ids: usbID(configuration.usb.vendorID, configuration.usb.productID))
            checks += DoctorCheck.named("usb_link", link.findings)
            checks += DoctorCheck.named(
                "subnet_collisions",
                collisions(
                    subnet: link.subnet, linkInterfaces: link.names, interfaces: facts.interfaces,
                    routes: facts.routes))
            checks.append(
                DoctorCheck(
                    "udev_rule",
                    udevRule(
                        facts.udevRule, vendorID: configuration.usb.vendorID, productID: configuration.usb.productID)))
            checks += DoctorCheck.named(
                "usb_device",
                usbDevices(
                    facts.usbDevices, vendorID: configuration.usb.vendorID, productID: configuration.usb.productID))
            if let hotplug = facts.hotplug { checks.append(DoctorCheck("usb_hotplug", self.hotplug(hotplug))) }
        }
        checks.append(DoctorCheck("board", boardStatus(configuration.board.url, facts.status)))
        switch configuration.wake.transport {
        case .loopback:
            checks.append(
                DoctorCheck(
                    "wake_transport", .ok("wake transport: loopback UDP on \(configuration.wake.loopbackListen)")))
        case .bluez:
            checks += DoctorCheck.named(
                "bluetooth",
                bluetooth(
                    adapter: configuration.wake.adapter, configuredAddress: configuration.wake.address,
                    board: facts.bluetoothStatus, bluetoothd: facts.bluetoothd ?? .unreachable("not asked")))
        }
        checks.append(DoctorCheck("session", session(facts.session)))
        return checks
    }

    /// The board's IP address when it is reached over a link; nil for loopback (`localhost`, 127.0.0.1, ::1).
    static func boardAddress(_ url: BoardURL) -> IPAddress? {
        guard case let .address(address) = url.host, !address.unmapped.isLoopback else { return nil }
        return address.unmapped
    }

    /// `1d6b:0104`, as lsusb and udev write a USB id.
    static func usbID(_ vendorID: UInt16, _ productID: UInt16) -> String {
        PhoneDaemon.usbID(vendorID, productID)
    }
}
