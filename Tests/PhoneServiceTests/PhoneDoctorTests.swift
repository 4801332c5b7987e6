import BlueZ
import Configuration
import DBusModel
import DesktopNotifications
import Doctor
import Foundation
import NetworkAddress
import PhoneCore
import Platform
import Testing
import USBLink

@testable import PhoneService

/// `aiden-phone doctor`'s judgement, check by check, as tables over plain facts: what is there, what is
/// missing, what is wrong, and that every problem says how to fix it.
@Suite struct PhoneDoctorTests {
    static let board = IPAddress(v4: 192, 168, 42, 1)
    static let ids = "1d6b:0104"

    static func entry(_ name: String, _ cidr: String, up: Bool = true, running: Bool = true) -> LocalInterfaces.Entry {
        let parts = cidr.split(separator: "/")
        return LocalInterfaces.Entry(
            name: name, address: IPAddress(parts[0])!, prefixLength: Int(parts[1])!, isUp: up, isRunning: running)
    }

    static func boardDevice(netif: [String] = ["enx0a"], manufacturer: String? = "AidenBridge") -> USBDeviceRecord {
        USBDeviceRecord(
            name: "1-1", vendorID: 0x1d6b, productID: 0x0104, manufacturer: manufacturer, busNumber: 1,
            deviceNumber: 5, networkInterfaces: netif)
    }

    static func expectFixes(_ findings: [DoctorFinding], sourceLocation: SourceLocation = #_sourceLocation) {
        for finding in findings where finding.severity == .problem {
            #expect(
                finding.fix?.isEmpty == false, "a problem without a fix: \(finding)", sourceLocation: sourceLocation)
        }
    }

    // MARK: The ECM interface and its address

    /// interfaces, USB devices → the severities and a phrase of the first finding.
    @Test(arguments: [
        // Present, up with carrier, the host's address in the board's subnet.
        (
            [entry("aidenboard0", "192.168.42.2/24")], [USBDeviceRecord](), [DoctorFinding.Severity.ok],
            "aidenboard0 is up with carrier and has 192.168.42.2/24, in the board's subnet (board 192.168.42.1)"
        ),
        // Missing: nothing plugged in.
        (
            [entry("eth0", "10.0.0.5/24")], [], [.problem],
            "no aidenboard0: the board is not plugged in (no USB device 1d6b:0104"
        ),
        // Plugged in, but no driver bound.
        ([], [boardDevice(netif: [])], [.problem], "the board is plugged in (USB 1-1) but has no network interface"),
        // Plugged in, not renamed (the .link file is not installed): the kernel's name still carries the link.
        (
            [entry("enx0a", "192.168.42.2/24")], [boardDevice()], [.problem, .ok],
            "the board's ECM interface is enx0a, not aidenboard0"
        ),
        // Down, no carrier.
        (
            [entry("aidenboard0", "192.168.42.2/24", up: false, running: false)], [], [.problem, .ok],
            "aidenboard0 is down"
        ),
        ([entry("aidenboard0", "192.168.42.2/24", running: false)], [], [.problem, .ok], "has no carrier"),
        // Wrong: no address, an address elsewhere, the board's own address.
        (
            [entry("aidenboard0", "10.1.0.2/24")], [], [.problem],
            "aidenboard0 has no address in the board's subnet (the board is 192.168.42.1); it has 10.1.0.2/24"
        ),
        ([entry("aidenboard0", "192.168.42.1/24")], [], [.problem], "has the board's own address 192.168.42.1"),
    ])
    func ecmInterface(
        interfaces: [LocalInterfaces.Entry], devices: [USBDeviceRecord], severities: [DoctorFinding.Severity],
        phrase: String
    ) {
        let local = LocalInterfaces(entries: interfaces)
        let result = PhoneDoctor.ecmLink(board: Self.board, interfaces: local, devices: devices, ids: Self.ids)
        #expect(result.findings.map(\.severity) == severities, "\(result.findings)")
        #expect(result.findings.first?.message.contains(phrase) == true, "\(result.findings)")
        #expect(result.subnet.description == "192.168.42.0/24")
        Self.expectFixes(result.findings)
    }

    @Test func anInterfaceWithoutAddressesIsStillFound() {
        let local = LocalInterfaces(entries: [], links: [.init(name: "aidenboard0", isUp: true, isRunning: true)])
        let findings = PhoneDoctor.ecmLink(board: Self.board, interfaces: local, devices: [], ids: Self.ids).findings
        #expect(findings.map(\.severity) == [.problem])
        #expect(findings[0].message == "aidenboard0 has no address in the board's subnet (the board is 192.168.42.1)")
        #expect(findings[0].fix?.contains("systemctl enable --now systemd-networkd") == true)
    }

    @Test func anotherBoardURLImpliesItsOwnSubnet() {
        let board = IPAddress(v4: 10, 20, 0, 1)
        let local = LocalInterfaces(entries: [Self.entry("aidenboard0", "10.20.0.2/16")])
        let result = PhoneDoctor.ecmLink(board: board, interfaces: local, devices: [], ids: Self.ids)
        #expect(result.findings.map(\.severity) == [.ok])
        #expect(result.subnet.description == "10.20.0.0/16", "the host's prefix names the subnet")
        #expect(PhoneDoctor.defaultSubnet(board).description == "10.20.0.0/24")
        #expect(PhoneDoctor.defaultSubnet(Self.board) == BoardConfiguration.ecmSubnet)
    }

    // MARK: Another network in the board's subnet

    static let route = "Iface\tDestination\tGateway \tFlags\tRefCnt\tUse\tMetric\tMask\t\tMTU\tWindow\tIRTT\n"

    static func routes(_ lines: [String]) -> [KernelRoute] {
        KernelRoute.parseTable(route + lines.map { $0 + "\n" }.joined())
    }

    @Test func tetheringIsNamedOnceWithWhatToDo() throws {
        // Android USB tethering: an address in 192.168.42.0/24 on usb1, and the route the kernel adds for it.
        let local = LocalInterfaces(entries: [
            Self.entry("aidenboard0", "192.168.42.2/24"), Self.entry("usb1", "192.168.42.129/24"),
            Self.entry("lo", "127.0.0.1/8"),
        ])
        let table = Self.routes([
            "aidenboard0\t002AA8C0\t00000000\t0001\t0\t0\t0\t00FFFFFF\t0\t0\t0",
            "usb1\t002AA8C0\t00000000\t0001\t0\t0\t0\t00FFFFFF\t0\t0\t0",
        ])
        let findings = PhoneDoctor.collisions(
            subnet: BoardConfiguration.ecmSubnet, linkInterfaces: ["aidenboard0"], interfaces: local, routes: table)
        let finding = try #require(findings.first)
        #expect(findings.count == 1, "usb1's route comes with its address: one finding, \(findings)")
        #expect(
            finding.description
                == "problem: usb1 has 192.168.42.129/24, inside the ECM subnet 192.168.42.0/24: traffic for the board "
                + "link may go to usb1 (Android USB tethering uses 192.168.42.0/24) (fix: turn off USB tethering or the "
                + "other network on usb1, or move the ECM link to another subnet ([board] url here; [http] listen and "
                + "allowed_subnets on the board; both .network files))")
    }

    /// interface entries besides the link, routes → severities (the link is aidenboard0 and the kernel's enx0a).
    @Test(arguments: [
        ([String](), [String](), [DoctorFinding.Severity.ok]),
        // A VPN host route into the subnet, a more specific route, both problems; a broader route only an info.
        ([], ["tun0\t0A2AA8C0\t00000000\t0005\t0\t0\t0\tFFFFFFFF\t0\t0\t0"], [.problem]),
        ([], ["wlan0\t802AA8C0\t00000000\t0001\t0\t0\t0\t80FFFFFF\t0\t0\t0"], [.problem]),
        ([], ["eth0\t0000A8C0\t00000000\t0001\t0\t0\t0\t0000FFFF\t0\t0\t0"], [.info]),
        // The default route and the link's own routes (by either name) are no collision.
        (
            [],
            [
                "eth0\t00000000\t0101A8C0\t0003\t0\t0\t100\t00000000\t0\t0\t0",
                "enx0a\t002AA8C0\t00000000\t0001\t0\t0\t0\t00FFFFFF\t0\t0\t0",
            ], [.ok]
        ),
        // An address on a /32 (no route) still collides.
        (["wg0 192.168.42.7/32"], [], [.problem]),
        // A neighbouring subnet does not.
        (["eth1 192.168.43.2/24"], ["eth1\t002BA8C0\t00000000\t0001\t0\t0\t0\t00FFFFFF\t0\t0\t0"], [.ok]),
    ])
    func collision(others: [String], routes: [String], severities: [DoctorFinding.Severity]) {
        let entries =
            [Self.entry("aidenboard0", "192.168.42.2/24")]
            + others.map { text in
                let parts = text.split(separator: " ")
                return Self.entry(String(parts[0]), String(parts[1]))
            }
        let findings = PhoneDoctor.collisions(
            subnet: BoardConfiguration.ecmSubnet, linkInterfaces: ["aidenboard0", "enx0a"],
            interfaces: LocalInterfaces(entries: entries), routes: Self.routes(routes))
        #expect(findings.map(\.severity) == severities, "\(findings)")
        if severities == [.ok] {
            #expect(
                findings[0].message
                    == "no other interface has an address or a route in the board's subnet 192.168.42.0/24")
        }
        Self.expectFixes(findings)
    }

    @Test func anUnreadableRouteTableIsSaid() {
        let findings = PhoneDoctor.collisions(
            subnet: BoardConfiguration.ecmSubnet, linkInterfaces: ["aidenboard0"],
            interfaces: LocalInterfaces(entries: []), routes: nil)
        #expect(findings == [.info("cannot read /proc/net/route: routes into the board's subnet not checked")])
    }

    // MARK: The udev rule, the USB device, hotplug

    static let shippedRule =
        #"ACTION!="remove", SUBSYSTEM=="usb", ENV{DEVTYPE}=="usb_device", ATTR{idVendor}=="1d6b", "#
        + #"ATTR{idProduct}=="0104", ATTR{manufacturer}=="AidenBridge", TAG+="systemd", "#
        + #"ENV{SYSTEMD_USER_WANTS}+="aiden-phone.service""#

    @Test(arguments: [
        (
            PhoneDoctor.InstalledFile?.none, UInt16(0x0104), DoctorFinding.Severity.problem,
            "is not installed (looked in /etc/udev/rules.d"
        ),
        (
            PhoneDoctor.InstalledFile(path: "/usr/lib/udev/rules.d/70-aiden-phone.rules", text: shippedRule), 0x0104,
            .ok,
            "udev rule /usr/lib/udev/rules.d/70-aiden-phone.rules is installed for 1d6b:0104"
        ),
        // The ids were changed in the configuration but not in the rule.
        (
            PhoneDoctor.InstalledFile(path: "/etc/udev/rules.d/70-aiden-phone.rules", text: shippedRule), 0x0105,
            .problem,
            "does not match the board's USB ids 1d6b:0105"
        ),
        (
            PhoneDoctor.InstalledFile(path: "/etc/udev/rules.d/70-aiden-phone.rules", text: shippedRule.uppercased()),
            0x0104,
            .ok, "is installed for 1d6b:0104"
        ),
    ])
    func udevRule(rule: PhoneDoctor.InstalledFile?, productID: UInt16, severity: DoctorFinding.Severity, phrase: String)
    {
        let finding = PhoneDoctor.udevRule(rule, vendorID: 0x1d6b, productID: productID)
        #expect(finding.severity == severity, "\(finding)")
        #expect(finding.message.contains(phrase), "\(finding)")
        Self.expectFixes([finding])
    }

    /// The device node is named, never judged: the client does not open it, so whether this user may is no
    /// finding (the udev rule no longer grants it to anyone).
    @Test(arguments: [
        ([USBDeviceRecord](), [DoctorFinding.Severity.info], "no USB device 1d6b:0104 is plugged in"),
        (
            [boardDevice()], [.ok],
            "the board is plugged in as USB 1-1 (bus 1, device 5); the client watches it through sysfs and udev "
                + "and never opens /dev/bus/usb/001/005"
        ),
        // Another gadget with the same ids (a Linux Foundation default) is not the board.
        ([boardDevice(manufacturer: "Linux\u{1b}[2J")], [.info], #"made by "Linux [2J", not AidenBridge"#),
    ])
    func usbDevice(devices: [USBDeviceRecord], severities: [DoctorFinding.Severity], phrase: String) {
        let findings = PhoneDoctor.usbDevices(devices, vendorID: 0x1d6b, productID: 0x0104)
        #expect(findings.map(\.severity) == severities, "\(findings)")
        #expect(findings.first?.message.contains(phrase) == true, "\(findings)")
        Self.expectFixes(findings)
    }

    @Test func hotplug() {
        let works = PhoneDoctor.hotplug(.init(monitoring: .monitoring, libraryVersion: "1.0.26", enumerated: 1))
        #expect(works == .ok("libusb 1.0.26 hotplug works here and reports the board plugged in"))
        #expect(PhoneDoctor.hotplug(.init(monitoring: .monitoring, libraryVersion: "1.0.26")).message.hasSuffix("here"))
        let container = PhoneDoctor.hotplug(
            .init(monitoring: .unmonitored(reason: "no /dev/bus/usb on this host"), libraryVersion: "1.0.26"))
        #expect(container.severity == .problem)
        #expect(container.message.hasPrefix("libusb cannot watch USB here: no /dev/bus/usb on this host"))
        Self.expectFixes([container])
    }

    // MARK: The board's /status

    static let url = BoardURL(host: .address(board), port: 8080)

    @Test(arguments: [
        (
            BoardResponse.answered(status: 200, etag: nil, body: Array(#"{"status":"ok","instance_id":"b1"}"#.utf8)),
            DoctorFinding.Severity.ok, "GET http://192.168.42.1:8080/status answers 200 (board instance b1)"
        ),
        (.answered(status: 200, etag: nil, body: Array(#"{"status":"ok"}"#.utf8)), .ok, "answers 200"),
        (
            .answered(
                status: 403, etag: nil,
                body: Array(
                    #"{"status":"error","error":{"code":"forbidden","message":"peer 10.99.0.2 is outside loopback and the allowed subnets"}}"#
                        .utf8)),
            .problem,
            "answered 403: the board refuses this host, whose address toward it is outside the board's allowed "
                + "subnets; the board says: peer 10.99.0.2 is outside loopback and the allowed subnets"
        ),
        (.answered(status: 403, etag: nil, body: []), .problem, "answered 403: the board refuses this host"),
        (.answered(status: 503, etag: nil, body: []), .problem, "answered HTTP 503"),
        (.failed(detail: "192.168.42.1:8080: connect: refused"), .problem, "got no answer: 192.168.42.1:8080: connect"),
    ])
    func boardStatus(response: BoardResponse, severity: DoctorFinding.Severity, phrase: String) {
        let finding = PhoneDoctor.boardStatus(Self.url, response)
        #expect(finding.severity == severity, "\(finding)")
        #expect(finding.message.contains(phrase), "\(finding)")
        Self.expectFixes([finding])
        if case .answered(403, _, _, _) = response {
            #expect(finding.fix?.contains("192.168.42.2/24") == true)
        }
    }

    // MARK: bluetoothd and the bond

    static let boardAddress = "00:AA:01:00:12:34"

    static func tree(
        adapter: Bool = true, powered: Bool = true, device: (paired: Bool, trusted: Bool)? = (true, true),
        uuids: [String] = [WakeGATT.serviceUUID]
    ) -> DBusManagedObjects {
        var objects: DBusManagedObjects = [:]
        if adapter {
            objects[BlueZNames.adapterPath("hci0")] = [
                BlueZNames.adapter: ["Address": .string("00:BB:02:00:56:78"), "Powered": .boolean(powered)]
            ]
        }
        if let device {
            objects[BlueZNames.adapterPath("hci0").appending("dev_00_AA_01_00_12_34")] = [
                BlueZNames.device: [
                    "Address": .string(boardAddress), "Paired": .boolean(device.paired),
                    "Trusted": .boolean(device.trusted), "UUIDs": .strings(uuids),
                ]
            ]
        }
        return objects
    }

    static func boardSays(transport: String = "bluez", address: String? = boardAddress) -> BoardResponse {
        let value = address.map { "\"\($0)\"" } ?? "null"
        return .answered(
            status: 200, etag: nil,
            body: Array(#"{"status":"ok","transport":"\#(transport)","address":\#(value),"problem":null}"#.utf8))
    }

    /// configured address, the board's answer, bluetoothd → the severities, and a phrase of the last finding.
    @Test(arguments: [
        // Present: bonded and trusted, the address learned from the board.
        (
            String?.none, BoardResponse?.some(boardSays()), BluetoothdView.running(tree()),
            [DoctorFinding.Severity.ok, .ok], "bonded with the board 00:AA:01:00:12:34 (Paired, Trusted)"
        ),
        // Or from [wake] address, without asking the board.
        ("00:AA:01:00:12:34", nil, .running(tree()), [.ok, .ok], "bonded with the board 00:AA:01:00:12:34"),
        // No bond.
        (
            nil, boardSays(), .running(tree(device: nil)), [.ok, .problem],
            "no bond with the board 00:AA:01:00:12:34: bluetoothd does not know it"
        ),
        (nil, boardSays(), .running(tree(device: (false, false))), [.ok, .problem], "holds no bond (Paired: no)"),
        (nil, boardSays(), .running(tree(device: (true, false))), [.ok, .problem], "is paired but not trusted"),
        // Missing or wrong pieces.
        (nil, boardSays(), .unreachable("NoServer"), [.problem], "the D-Bus system bus is not reachable (NoServer)"),
        (nil, boardSays(), .notRunning, [.problem], "bluetoothd is not running"),
        (nil, boardSays(), .running(tree(adapter: false)), [.problem], "bluetoothd runs but has no adapter hci0"),
        (nil, boardSays(), .running(tree(powered: false)), [.problem, .ok], "bonded with the board"),
        (
            "00:AA:01:00:99:99", boardSays(), .running(tree()), [.ok, .problem, .problem],
            "no bond with the board 00:AA:01:00:99:99"
        ),
        (
            nil, boardSays(transport: "loopback", address: nil), .running(tree()), [.ok, .problem, .ok],
            "bonded with the board 00:AA:01:00:12:34"
        ),
        // The board cannot be asked: a device bluetoothd knows with the Wake service stands in.
        (
            nil, BoardResponse.failed(detail: "refused"), .running(tree()), [.ok, .ok],
            "bonded with the board 00:AA:01:00:12:34"
        ),
        (
            nil, nil, .running(tree(uuids: [])), [.ok, .problem],
            "knows no device with the Wake service: no bond with a board"
        ),
        (
            nil, boardSays(address: "not an address"), .running(tree(device: nil)), [.ok, .problem],
            "the board reports no Bluetooth address"
        ),
    ])
    func bluetooth(
        configured: String?, board: BoardResponse?, bluetoothd: BluetoothdView, severities: [DoctorFinding.Severity],
        phrase: String
    ) {
        let findings = PhoneDoctor.bluetooth(
            adapter: "hci0", configuredAddress: configured, board: board, bluetoothd: bluetoothd)
        #expect(findings.map(\.severity) == severities, "\(findings)")
        #expect(findings.last?.message.contains(phrase) == true, "\(findings)")
        Self.expectFixes(findings)
    }

    @Test func theBoardsWordsNameTheMismatch() {
        let findings = PhoneDoctor.bluetooth(
            adapter: "hci0", configuredAddress: "00:AA:01:00:99:99", board: Self.boardSays(),
            bluetoothd: .running(Self.tree()))
        #expect(
            findings[1].description
                == "problem: [wake] address 00:AA:01:00:99:99 is not the board's Bluetooth address 00:AA:01:00:12:34 "
                + "(as the board reports it) (fix: set [wake] address = \"00:AA:01:00:12:34\", or \"\" to find the "
                + "board by its Wake service)")
        let loopback = PhoneDoctor.bluetooth(
            adapter: "hci0", configuredAddress: nil, board: Self.boardSays(transport: "loopback", address: nil),
            bluetoothd: .running(Self.tree()))
        #expect(loopback[1].message.hasPrefix("the board sends its Wakes over loopback ([wake] transport there)"))
    }

    // MARK: The session bus and a notification server

    @Test(arguments: [
        (
            PhoneDoctor.SessionView(location: .none), DoctorFinding.Severity.info,
            "no session bus (DBUS_SESSION_BUS_ADDRESS unset, no $XDG_RUNTIME_DIR/bus): no desktop notifications"
        ),
        (
            .init(location: .runtimeDirectory("/run/user/1000/bus"), notifications: .server("dunst knopwob 1.9.0")),
            .ok,
            "desktop notifications via dunst knopwob 1.9.0 on the session bus /run/user/1000/bus ($XDG_RUNTIME_DIR/bus)"
        ),
        (
            .init(
                location: .environment("unix:path=/tmp/b"),
                notifications: .noServer("org.freedesktop.DBus.Error.ServiceUnknown")),
            .info, "no notification server on the session bus unix:path=/tmp/b (DBUS_SESSION_BUS_ADDRESS)"
        ),
        (
            .init(location: .environment("unix:path=/tmp/gone"), notifications: .busUnreachable("FileNotFound")),
            .problem, "the session bus unix:path=/tmp/gone (DBUS_SESSION_BUS_ADDRESS) is not reachable (FileNotFound)"
        ),
    ])
    func session(view: PhoneDoctor.SessionView, severity: DoctorFinding.Severity, phrase: String) {
        let finding = PhoneDoctor.session(view)
        #expect(finding.severity == severity, "\(finding)")
        #expect(finding.message.contains(phrase), "\(finding)")
        #expect((finding.fix != nil) == (severity != .ok), "what is missing says how to get it")
    }

    // MARK: All of it

    static func configuration(_ text: String = "") -> PhoneConfiguration {
        try! PhoneConfiguration.parse(text, file: "phone.toml")
    }

    /// A host where everything is in place: every finding is ok, the doctor exits 0.
    static func healthy() -> PhoneDoctor.Facts {
        PhoneDoctor.Facts(
            configPath: "/etc/aiden/phone.toml", configuration: configuration(),
            interfaces: LocalInterfaces(entries: [entry("lo", "127.0.0.1/8"), entry("aidenboard0", "192.168.42.2/24")]),
            routes: routes(["aidenboard0\t002AA8C0\t00000000\t0001\t0\t0\t0\t00FFFFFF\t0\t0\t0"]),
            udevRule: .init(path: "/usr/lib/udev/rules.d/70-aiden-phone.rules", text: shippedRule),
            usbDevices: [boardDevice(netif: ["aidenboard0"])],
            hotplug: .init(monitoring: .monitoring, libraryVersion: "1.0.26", enumerated: 1),
            status: .answered(status: 200, etag: nil, body: Array(#"{"status":"ok","instance_id":"b1"}"#.utf8)),
            bluetoothStatus: boardSays(), bluetoothd: .running(tree()),
            session: .init(location: .environment("unix:path=/run/user/1000/bus"), notifications: .server("dunst")))
    }

    @Test func aHealthyHostIsAllOkAndExitsZero() {
        let findings = PhoneDoctor.findings(Self.healthy())
        #expect(findings.allSatisfy { $0.severity == .ok }, "\(findings.map(\.description).joined(separator: "\n"))")
        #expect(DoctorFinding.exitStatus(findings) == 0)
        #expect(findings.count == 11)
        #expect(findings.first == .ok("configuration /etc/aiden/phone.toml is valid"))
    }

    /// One thing wrong at a time: exactly one problem, and the doctor exits 1.
    @Test(arguments: 0..<6)
    func oneThingWrongIsOneProblem(index: Int) {
        var facts = Self.healthy()
        switch index {
        case 0: facts.interfaces.entries.append(Self.entry("usb1", "192.168.42.129/24"))
        case 1: facts.status = .answered(status: 403, etag: nil, body: [])
        case 2: facts.bluetoothd = .running(Self.tree(device: nil))
        case 3: facts.udevRule = nil
        case 4:
            facts.hotplug = .init(
                monitoring: .unmonitored(reason: "no /dev/bus/usb on this host"), libraryVersion: "1.0.26")
        default: facts.stateDirectory = .denied("Permission denied")
        }
        let findings = PhoneDoctor.findings(facts)
        #expect(findings.filter { $0.severity == .problem }.count == 1, "\(findings)")
        #expect(DoctorFinding.exitStatus(findings) == 1)
    }

    @Test func noNotificationServerIsNotAProblem() {
        var facts = Self.healthy()
        facts.session = .init(location: .none)
        #expect(DoctorFinding.exitStatus(PhoneDoctor.findings(facts)) == 0)
        facts.session = .init(location: .environment("unix:path=/x"), notifications: .noServer("ServiceUnknown"))
        #expect(DoctorFinding.exitStatus(PhoneDoctor.findings(facts)) == 0)
    }

    @Test func aBoardOnLoopbackSkipsTheCableAndLoopbackWakesSkipBluetooth() {
        let facts = PhoneDoctor.Facts(
            configPath: "p.toml",
            configuration: Self.configuration(
                "[board]\nurl = \"http://127.0.0.1:8080\"\n[wake]\ntransport = \"loopback\"\n"),
            status: .answered(status: 200, etag: nil, body: Array(#"{"status":"ok"}"#.utf8)))
        let findings = PhoneDoctor.findings(facts)
        #expect(
            findings.map(\.description) == [
                "ok: configuration p.toml is valid",
                "ok: state directory /var/lib/aiden-phone is writable",
                "info: the board is on loopback (http://127.0.0.1:8080): no USB link, udev rule, USB device or "
                    + "hotplug to check",
                "ok: GET http://127.0.0.1:8080/status answers 200",
                "ok: wake transport: loopback UDP on 127.0.0.1:47800",
                "info: no session bus (DBUS_SESSION_BUS_ADDRESS unset, no $XDG_RUNTIME_DIR/bus): no desktop "
                    + "notifications; alerts go to the terminal and --json (fix: run aiden-phone in your desktop "
                    + "session (its systemd --user unit) to get desktop notifications)",
            ])
        #expect(DoctorFinding.exitStatus(findings) == 0)
    }

    @Test func aBadConfigurationIsTheOnlyFinding() {
        let findings = PhoneDoctor.examine(
            configPath: "/nonexistent/phone.toml", system: PhoneDoctor.System(environment: [:]))
        #expect(findings.count == 1)
        #expect(findings.first?.severity == .problem)
        #expect(findings.first?.message.contains("/nonexistent/phone.toml") == true)
        // No file at the standard places: the defaults, and then the environment's override is wrong.
        var system = PhoneDoctor.System(
            environment: ["LIVE_ACTIVITY_PHONE_ID": "has space", "XDG_CONFIG_HOME": "/nonexistent"])
        system.isRoot = false
        let environment = PhoneDoctor.examine(configPath: nil, system: system)
        #expect(environment.map(\.fix) == ["correct the environment"])
    }
}

/// sysfs as the doctor reads it, from a fixture tree: the board among other devices, its interface's network
/// device, and its node.
@Suite struct USBDeviceRecordTests {
    @Test func findsTheBoardByItsIdsWithItsInterfaceAndNode() throws {
        let scratch = "/tmp/aiden-doctor-sysfs-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        let fs = POSIXFileSystem()
        func file(_ path: String, _ text: String) throws {
            try fs.createDirectory(at: PathSyntax.parentDirectory(of: scratch + path), permissions: 0o755)
            try fs.writeFile(at: scratch + path, contents: Array(text.utf8), permissions: 0o644)
        }
        // The board, with its ECM interface on 1-1:1.0 and a data interface without a network device.
        try file("/sys/1-1/idVendor", "1d6b\n")
        try file("/sys/1-1/idProduct", "0104\n")
        try file("/sys/1-1/manufacturer", "AidenBridge\n")
        try file("/sys/1-1/busnum", "1\n")
        try file("/sys/1-1/devnum", "5\n")
        try fs.createDirectory(at: scratch + "/sys/1-1/1-1:1.0/net/aidenboard0", permissions: 0o755)
        try fs.createDirectory(at: scratch + "/sys/1-1/1-1:1.1", permissions: 0o755)
        // A keyboard, an interface directory at the top (sysfs lists those too) and a half-gone device.
        try file("/sys/2-1/idVendor", "046d\n")
        try file("/sys/2-1/idProduct", "c31c\n")
        try fs.createDirectory(at: scratch + "/sys/1-1:1.0", permissions: 0o755)
        try file("/sys/3-1/idVendor", "1d6b\n")
        try file("/sys/3-1/idProduct", "0104\n")
        // Another gadget with the same ids, plugged in without its node yet.
        try file("/sys/4-2.1/idVendor", "1d6b\n")
        try file("/sys/4-2.1/idProduct", "0104\n")
        try file("/sys/4-2.1/busnum", "4\n")
        try file("/sys/4-2.1/devnum", "12\n")

        let found = USBDeviceRecord.scan(
            vendorID: 0x1d6b, productID: 0x0104, root: scratch + "/sys", nodes: scratch + "/dev")
        #expect(
            found == [
                USBDeviceRecord(
                    name: "1-1", vendorID: 0x1d6b, productID: 0x0104, manufacturer: "AidenBridge", busNumber: 1,
                    deviceNumber: 5, networkInterfaces: ["aidenboard0"], node: scratch + "/dev/001/005"),
                USBDeviceRecord(
                    name: "4-2.1", vendorID: 0x1d6b, productID: 0x0104, manufacturer: nil, busNumber: 4,
                    deviceNumber: 12, node: scratch + "/dev/004/012"),
            ])
        #expect(USBDeviceRecord.scan(vendorID: 0x1d6b, productID: 0x0104, root: scratch + "/nothing").isEmpty)
        #expect(USBDeviceRecord.nodePath(bus: 1, device: 5) == "/dev/bus/usb/001/005")
        #expect(USBDeviceRecord.nodePath(bus: 12, device: 127) == "/dev/bus/usb/012/127")
    }
}
