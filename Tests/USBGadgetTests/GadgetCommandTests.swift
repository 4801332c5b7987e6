import Foundation
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
