import Configuration
import Doctor
import NetworkAddress
import Testing

@testable import BoardService

/// `aiden-board doctor`'s subnet collision check: /proc/net/route fixtures (little-endian hosts).
@Suite struct RouteCollisionTests {
    static let header = "Iface\tDestination\tGateway \tFlags\tRefCnt\tUse\tMetric\tMask\t\tMTU\tWindow\tIRTT\n"

    static func table(_ lines: [String]) -> String { header + lines.map { $0 + "\n" }.joined() }
    static func subnet(_ text: String) -> Subnet { try! Subnet(text) }
    static let ecm = subnet("192.168.42.0/24")

    @Test func parsesTheKernelsFormat() {
        let routes = KernelRoute.parseTable(
            Self.table([
                "eth0\t00000000\t0101A8C0\t0003\t0\t0\t100\t00000000\t0\t0\t0",
                "eth0\t0001A8C0\t00000000\t0001\t0\t0\t100\t00FFFFFF\t0\t0\t0",
                "aiden0\t002AA8C0\t00000000\t0001\t0\t0\t0\t00FFFFFF\t0\t0\t0",
                "wlan0\t0000A8C0\t00000000\t0000\t0\t0\t0\t0000FFFF\t0\t0\t0",
                "tun0\t0A2AA8C0\t00000000\t0005\t0\t0\t0\tFFFFFFFF\t0\t0\t0",
            ]))
        #expect(
            routes == [
                .init(interface: "eth0", destination: Self.subnet("0.0.0.0/0"), gateway: IPAddress(v4: 192, 168, 1, 1)),
                .init(interface: "eth0", destination: Self.subnet("192.168.1.0/24")),
                .init(interface: "aiden0", destination: Self.subnet("192.168.42.0/24")),
                .init(interface: "wlan0", destination: Self.subnet("192.168.0.0/16"), isUp: false),
                .init(interface: "tun0", destination: Self.subnet("192.168.42.10/32")),
            ])
    }

    @Test(arguments: [
        "", "garbage", "eth0\t0001A8C0\t00000000\t0001\t0\t0\t100",  // too few fields
        "eth0\tXX01A8C0\t00000000\t0001\t0\t0\t100\t00FFFFFF\t0\t0\t0",  // not hex
        "eth0\t0001A8C0\t00000000\t0001\t0\t0\t100\t00FF00FF\t0\t0\t0",  // non-contiguous mask
        "eth0\t0101A8C0\t00000000\t0001\t0\t0\t100\t00FFFFFF\t0\t0\t0",  // host bits set
    ])
    func skipsWhatIsNotARoute(line: String) {
        #expect(KernelRoute.parseTable(Self.table([line])).isEmpty)
    }

    /// route, then the severity expected (nil: no finding for it).
    @Test(arguments: [
        ("usb1 192.168.42.0/24", DoctorFinding.Severity?.some(.problem)),  // Android USB tethering
        ("wlan0 192.168.42.128/25", .problem),  // more specific
        ("tun0 192.168.42.7/32", .problem),
        ("eth0 192.168.0.0/16", .info),  // broader: only when ECM is down
        ("eth0 0.0.0.0/0", nil),  // the default route
        ("aiden0 192.168.42.0/24", nil),  // our own link
        ("usb0 192.168.42.0/24", nil),  // the link by its kernel name
        ("eth0 192.168.43.0/24", nil),  // a neighbour, no overlap
        ("eth0 10.0.0.0/8", nil),
    ])
    func judgesOneRoute(route: String, expected: DoctorFinding.Severity?) {
        let parts = route.split(separator: " ")
        let routes = [KernelRoute(interface: String(parts[0]), destination: Self.subnet(String(parts[1])))]
        let findings = BoardDoctor.routeCollisions(
            subnet: Self.ecm, ecmInterfaces: ["aiden0", "usb0"],
            routes: routes)
        if let expected {
            #expect(findings.map(\.severity) == [expected])
        } else {
            let ok = DoctorFinding(
                severity: .ok,
                message: "no other route overlaps the ECM subnet 192.168.42.0/24")
            #expect(findings == [ok])
        }
    }

    @Test func aDownRouteIsNotACollision() {
        let route = KernelRoute(interface: "usb1", destination: Self.ecm, isUp: false)
        let findings = BoardDoctor.routeCollisions(subnet: Self.ecm, ecmInterfaces: [], routes: [route])
        #expect(findings.map(\.severity) == [.ok])
    }

    @Test func tetheringFindingSaysWhatAndHow() throws {
        let route = KernelRoute(
            interface: "usb1", destination: Self.ecm,
            gateway: IPAddress(v4: 192, 168, 42, 129))
        let findings = BoardDoctor.routeCollisions(subnet: Self.ecm, ecmInterfaces: [], routes: [route])
        let finding = try #require(findings.first)
        #expect(
            finding.description == "problem: route 192.168.42.0/24 dev usb1 via 192.168.42.129 overlaps the ECM "
                + "subnet 192.168.42.0/24: traffic for the phone link may go to usb1 (Android USB tethering uses "
                + "192.168.42.0/24) (fix: turn off USB tethering or the other network on usb1, or move the ECM link to "
                + "another subnet ([http] listen and allowed_subnets, and both .network files))")
    }

    @Test func examineUsesTheInterfaceHoldingTheListenAddress() {
        let interfaces = LocalInterfaces(entries: [
            .init(
                name: "usb0", address: IPAddress(v4: 192, 168, 42, 1), prefixLength: 24,
                isUp: true, isRunning: true)
        ])
        let table = Self.table([
            "usb0\t002AA8C0\t00000000\t0001\t0\t0\t0\t00FFFFFF\t0\t0\t0",
            "rndis0\t002AA8C0\t00000000\t0001\t0\t0\t0\t00FFFFFF\t0\t0\t0",
        ])
        let findings = BoardDoctor.routeCollisions(.defaults, interfaces: interfaces, routeTable: table)
        #expect(findings.count == 1)
        #expect(findings.first?.severity == .problem)
        #expect(findings.first?.message.hasPrefix("route 192.168.42.0/24 dev rndis0 overlaps") == true)
    }

    @Test func noTableIsSaidAndLoopbackOnlyIsNotChecked() throws {
        #expect(
            BoardDoctor.routeCollisions(.defaults, interfaces: LocalInterfaces(entries: []), routeTable: nil)
                == [.init(severity: .info, message: "cannot read /proc/net/route: subnet collisions not checked")])
        let loopback = try BoardConfiguration.parse("[http]\nlisten = [\"127.0.0.1:8080\"]\n", file: "b.toml")
        #expect(
            BoardDoctor.routeCollisions(loopback, interfaces: LocalInterfaces(entries: []), routeTable: nil).isEmpty)
    }

    @Test func examineReportsTheCollision() throws {
        let table = Self.table(["usb1\t002AA8C0\t00000000\t0001\t0\t0\t0\t00FFFFFF\t0\t0\t0"])
        let findings = BoardDoctor.examine(
            configPath: "/nonexistent/board.toml", explicitConfig: false,
            interfaces: LocalInterfaces(entries: []), routeTable: table)
        #expect(
            findings.contains {
                $0.severity == .problem
                    && $0.message.hasPrefix("route 192.168.42.0/24 dev usb1")
            })
    }

    @Test func readsThisMachinesTable() {
        let text = KernelRoute.readTable()
        #expect(text?.hasPrefix("Iface") == true)
        #expect(KernelRoute.readTable(path: "/nonexistent/route") == nil)
    }
}
