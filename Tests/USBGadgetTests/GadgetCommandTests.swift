import Doctor
import Foundation
import NetworkAddress
import Testing

@testable import BoardService
@testable import USBGadget

/// `aiden-board gadget up|down` as the executable runs it, against the emulated tree.
@Suite struct GadgetCommandTests {
    static func run(
        _ fake: ConfigfsEmulator, up: Bool = true, config: String? = nil, explicit: Bool = false,
        udc: String? = nil
    ) throws -> GadgetCommand.Outcome {
        let configPath = "\(fake.root)/board.toml"
        if let config { try config.write(toFile: configPath, atomically: true, encoding: .utf8) }
        // The command's own --configfs wins over the paths' default, as on the command line.
        return GadgetCommand.run(
            up: up, configPath: configPath, explicitConfig: explicit,
            configfs: fake.paths.configfs, udc: udc, tree: fake,
            paths: GadgetPaths(
                configfs: "/nonexistent", udcClass: fake.paths.udcClass,
                machineID: fake.paths.machineID))
    }

    @Test func upWithoutAConfigurationFileUsesTheDefaults() throws {
        let fake = try ConfigfsEmulator()
        let outcome = try Self.run(fake)
        #expect(outcome.exitCode == 0)
        #expect(outcome.message.hasPrefix("aiden-board gadget: gadget aiden bound to dummy_udc.0: interface usb0"))
        #expect(fake.value("aiden/idVendor") == "0x1d6b\n")
        #expect(fake.value("aiden/idProduct") == "0x0104\n")
    }

    @Test func upTakesIdsAndUDCFromTheConfiguration() throws {
        let fake = try ConfigfsEmulator(udcs: ["a.0", "b.0"])
        let config = "[gadget]\nvendor_id = \"0x1209\"\nproduct_id = \"0x0001\"\nudc = \"b.0\"\n"
        let outcome = try Self.run(fake, config: config)
        #expect(outcome.exitCode == 0)
        #expect(fake.value("aiden/idVendor") == "0x1209\n")
        #expect(fake.value("aiden/idProduct") == "0x0001\n")
        #expect(fake.value("aiden/UDC") == "b.0\n")
    }

    @Test func theCommandLineUDCBeatsTheConfiguration() throws {
        let fake = try ConfigfsEmulator(udcs: ["a.0", "b.0"])
        let outcome = try Self.run(fake, config: "[gadget]\nudc = \"b.0\"\n", udc: "a.0")
        #expect(outcome.exitCode == 0)
        #expect(fake.value("aiden/UDC") == "a.0\n")
    }

    @Test func anExplicitMissingConfigurationIsAnError() throws {
        let fake = try ConfigfsEmulator()
        let outcome = try Self.run(fake, explicit: true)
        #expect(
            outcome
                == GadgetCommand.Outcome(
                    exitCode: 1,
                    message: "aiden-board gadget: \(fake.root)/board.toml: no such file"))
        #expect(fake.journal.isEmpty)
    }

    @Test func aBrokenConfigurationStopsUpButNotDown() throws {
        let fake = try ConfigfsEmulator()
        _ = try Self.run(fake)
        let broken = "[gadget]\nvendor_id = 0x1d6b\n"
        let up = try Self.run(fake, config: broken)
        #expect(up.exitCode == 1)
        #expect(up.message.contains("gadget.vendor_id"))
        let down = try Self.run(fake, up: false, config: broken)
        #expect(
            down
                == GadgetCommand.Outcome(
                    exitCode: 0,
                    message: "aiden-board gadget: gadget aiden unbound and removed"))
    }

    @Test func exitCodes() throws {
        let missing = try ConfigfsEmulator(configfs: false)
        #expect(try Self.run(missing).exitCode == 69)
        #expect(try Self.run(missing, up: false).exitCode == 69)
        let noUDC = try ConfigfsEmulator(udcs: [])
        let outcome = try Self.run(noUDC)
        #expect(outcome.exitCode == 69)
        #expect(outcome.message.hasPrefix("aiden-board gadget: no USB device controller: "))
        let fine = try ConfigfsEmulator()
        #expect(
            try Self.run(fine, up: false)
                == GadgetCommand.Outcome(
                    exitCode: 0, message: "aiden-board gadget: gadget aiden is not set up: nothing to do"))
    }
}

/// `aiden-board gadget status`: read-only, exit 0 when the gadget is up, 3 when it is not, 69 without configfs.
@Suite struct GadgetStatusCommandTests {
    static func status(
        _ fake: ConfigfsEmulator, interfaces: LocalInterfaces = LocalInterfaces(entries: [])
    )
        -> GadgetCommand.Outcome
    {
        GadgetCommand.status(configfs: fake.paths.configfs, tree: fake, paths: fake.paths, interfaces: { interfaces })
    }

    @Test func anUpGadgetNamesItsUDCInterfaceAndEnds() throws {
        let fake = try ConfigfsEmulator()
        #expect(try GadgetCommandTests.run(fake).exitCode == 0)
        fake.clearJournal()
        let link = LocalInterfaces(entries: [
            .init(name: "usb0", address: IPAddress(v4: 192, 168, 42, 1), prefixLength: 24, isUp: true, isRunning: true)
        ])
        let outcome = Self.status(fake, interfaces: link)
        #expect(outcome.exitCode == 0)
        let lines = outcome.message.split(separator: "\n").map(String.init)
        #expect(lines.count == 3)
        #expect(lines[0] == "gadget aiden: up, bound to dummy_udc.0")
        #expect(lines[1] == "interface: usb0, carrier, 192.168.42.1/24")
        #expect(lines[2].hasPrefix("board end: ") && lines[2].contains(", host end: "))
        #expect(fake.journal.isEmpty, "status changes nothing")
    }

    @Test func aGadgetNotSetUpOrNotBoundIsExit3() throws {
        let fake = try ConfigfsEmulator()
        let absent = Self.status(fake)
        #expect(absent.exitCode == 3)
        #expect(absent.message.hasPrefix("gadget aiden: not set up in \(fake.paths.gadgets)"))
        #expect(try GadgetCommandTests.run(fake).exitCode == 0)
        try fake.write(fake.paths.absolute("aiden/UDC"), "\n")
        let unbound = Self.status(fake)
        #expect(unbound.exitCode == 3)
        #expect(unbound.message.hasPrefix("gadget aiden: created in \(fake.paths.gadgets) but not bound to a UDC"))
    }

    @Test func withoutConfigfsIsExit69() throws {
        let outcome = GadgetCommand.status(
            configfs: "/nonexistent-configfs", tree: POSIXGadgetTree(), interfaces: { LocalInterfaces(entries: []) })
        #expect(outcome.exitCode == 69)
        #expect(outcome.message.hasPrefix("aiden-board gadget: "))
    }
}

/// The report's words for each state, pure.
@Suite struct GadgetStatusLinesTests {
    static let cases: [(GadgetStatus, Int32, [String])] = [
        (
            GadgetStatus(gadgets: "/cfg/usb_gadget", created: false), 3,
            ["gadget aiden: not set up in /cfg/usb_gadget (run aiden-board gadget up, or start aiden-gadget.service)"]
        ),
        (
            GadgetStatus(
                gadgets: "/cfg/usb_gadget", created: true, boundUDC: "fe980000.usb", interface: "aiden0",
                deviceAddress: "02:1a:2b:3c:4d:5e", hostAddress: "06:1a:2b:3c:4d:5e", carrier: false),
            0,
            [
                "gadget aiden: up, bound to fe980000.usb",
                "interface: aiden0, no carrier (no host on the cable), no address",
                "board end: 02:1a:2b:3c:4d:5e, host end: 06:1a:2b:3c:4d:5e",
            ]
        ),
        (
            GadgetStatus(gadgets: "/cfg/usb_gadget", created: true, boundUDC: "u.0"), 0,
            ["gadget aiden: up, bound to u.0", "interface: none named by the ECM function"]
        ),
    ]

    @Test(arguments: cases)
    func theReportSaysWhatTheGadgetIs(status: GadgetStatus, exit: Int32, lines: [String]) {
        #expect(status.exitCode == exit)
        #expect(status.lines == lines)
    }
}
