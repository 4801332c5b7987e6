import Foundation
import Testing

@testable import USBGadget

/// The controller against a temporary tree with configfs's behaviour emulated (ConfigfsEmulator).
@Suite struct GadgetControllerTests {
    static let upJournal = [
        "mkdir aiden",
        "write aiden/idVendor 0x1d6b",
        "write aiden/idProduct 0x0104",
        "write aiden/bcdDevice 0x0100",
        "write aiden/bcdUSB 0x0200",
        "mkdir aiden/strings/0x409",
        "write aiden/strings/0x409/manufacturer AidenBridge",
        "write aiden/strings/0x409/product Aiden board",
        "write aiden/strings/0x409/serialnumber 8FFA26AE04B1DBE4",
        "mkdir aiden/configs/c.1",
        "write aiden/configs/c.1/MaxPower 250",
        "mkdir aiden/configs/c.1/strings/0x409",
        "write aiden/configs/c.1/strings/0x409/configuration ECM network",
        "mkdir aiden/functions/ecm.usb0",
        "write aiden/functions/ecm.usb0/dev_addr 02:a1:de:a6:08:45",
        "write aiden/functions/ecm.usb0/host_addr 06:a1:de:7d:a1:f8",
        "link aiden/configs/c.1/ecm.usb0 -> aiden/functions/ecm.usb0",
        "write aiden/UDC dummy_udc.0",
    ]

    static let downJournal = [
        "write aiden/UDC \"\"",
        "rm aiden/configs/c.1/ecm.usb0",
        "rmdir aiden/configs/c.1/strings/0x409",
        "rmdir aiden/configs/c.1",
        "rmdir aiden/functions/ecm.usb0",
        "rmdir aiden/strings/0x409",
        "rmdir aiden",
    ]

    static func controller(_ fake: ConfigfsEmulator) -> GadgetController {
        GadgetController(tree: fake, paths: fake.paths)
    }

    static func up(_ fake: ConfigfsEmulator, udc: String? = nil) throws(GadgetError) -> GadgetReport {
        try controller(fake).up(vendorID: 0x1d6b, productID: 0x0104, udc: udc)
    }

    @Test func upWritesTheGadgetAndBindsTheFirstUDC() throws {
        let fake = try ConfigfsEmulator(udcs: ["musb-hdrc.0", "dummy_udc.0"])
        let report = try Self.up(fake)
        #expect(
            report
                == .bound(
                    udc: "dummy_udc.0", interface: "usb0",
                    deviceAddress: MACAddress(bytes: [0x02, 0xa1, 0xde, 0xa6, 0x08, 0x45])!,
                    hostAddress: MACAddress(bytes: [0x06, 0xa1, 0xde, 0x7d, 0xa1, 0xf8])!))
        #expect(fake.journal == Self.upJournal)
        let expected = [
            "aiden/idVendor": "0x1d6b\n", "aiden/idProduct": "0x0104\n", "aiden/bcdDevice": "0x0100\n",
            "aiden/bcdUSB": "0x0200\n", "aiden/UDC": "dummy_udc.0\n",
            "aiden/strings/0x409/manufacturer": "AidenBridge\n", "aiden/strings/0x409/product": "Aiden board\n",
            "aiden/strings/0x409/serialnumber": "8FFA26AE04B1DBE4\n", "aiden/configs/c.1/MaxPower": "250\n",
            "aiden/configs/c.1/bmAttributes": "0x80\n",
            "aiden/configs/c.1/strings/0x409/configuration": "ECM network\n",
            // As Linux 6.1 reads them back: a NUL before the newline.
            "aiden/functions/ecm.usb0/dev_addr": "02:a1:de:a6:08:45\0\n",
            "aiden/functions/ecm.usb0/host_addr": "06:a1:de:7d:a1:f8\0\n",
            "aiden/functions/ecm.usb0/ifname": "usb0\n",
        ]
        for (path, value) in expected { #expect(fake.value(path) == value, "\(path)") }
        let link = try FileManager.default.destinationOfSymbolicLink(
            atPath: fake.paths.absolute("aiden/configs/c.1/ecm.usb0"))
        #expect(link == fake.paths.absolute("aiden/functions/ecm.usb0"))
        #expect(
            report.description == "gadget aiden bound to dummy_udc.0: interface usb0 "
                + "(board end 02:a1:de:a6:08:45, host end 06:a1:de:7d:a1:f8)")
    }

    @Test func upTwiceChangesNothing() throws {
        let fake = try ConfigfsEmulator()
        _ = try Self.up(fake)
        fake.clearJournal()
        #expect(try Self.up(fake) == .alreadyUp(udc: "dummy_udc.0"))
        #expect(try Self.up(fake, udc: "dummy_udc.0") == .alreadyUp(udc: "dummy_udc.0"))
        #expect(fake.journal.isEmpty)
    }

    @Test func upWithOtherIdsRewritesThemAndRebinds() throws {
        let fake = try ConfigfsEmulator()
        _ = try Self.up(fake)
        fake.clearJournal()
        _ = try Self.controller(fake).up(vendorID: 0x1234, productID: 0x0104, udc: nil)
        #expect(fake.journal == ["write aiden/UDC \"\"", "write aiden/idVendor 0x1234", "write aiden/UDC dummy_udc.0"])
        #expect(fake.value("aiden/idVendor") == "0x1234\n")
    }

    /// A new machine id (a cloned image, systemd-machine-id-setup) means new addresses: configfs
    /// takes them only while no configuration links the function.
    @Test func newAddressesAreWrittenWithTheFunctionUnlinked() throws {
        let fake = try ConfigfsEmulator()
        _ = try Self.up(fake)
        try "3d1219c7c4c5404aaa1f6d2a48adfda4\n".write(toFile: fake.paths.machineID, atomically: true, encoding: .utf8)
        fake.clearJournal()
        _ = try Self.up(fake)
        #expect(
            fake.journal == [
                "write aiden/UDC \"\"",
                "rm aiden/configs/c.1/ecm.usb0",
                "write aiden/strings/0x409/serialnumber 9A9A86EE6877F29D",
                "write aiden/functions/ecm.usb0/dev_addr 02:a1:de:bb:8b:c1",
                "write aiden/functions/ecm.usb0/host_addr 06:a1:de:46:db:e1",
                "link aiden/configs/c.1/ecm.usb0 -> aiden/functions/ecm.usb0",
                "write aiden/UDC dummy_udc.0",
            ])
        #expect(try Self.up(fake) == .alreadyUp(udc: "dummy_udc.0"))
    }

    @Test(arguments: [
        ("02:a1:de:bb:8b:c1\0\n", "02:a1:de:bb:8b:c1"), ("0x1d6b\n", "0x1d6b"), ("\n", ""),
        ("Aiden board\n", "Aiden board"), ("x\r\n", "x"),
    ])
    func attributeValuesAreTrimmedAsTheKernelPrintsThem(raw: String, value: String) {
        #expect(GadgetController.trimmed(raw) == value)
    }

    @Test func upKeepsTheBoundUDCUnlessAnotherIsAskedFor() throws {
        let fake = try ConfigfsEmulator(udcs: ["a.0", "b.0"])
        _ = try Self.up(fake, udc: "b.0")
        #expect(try Self.up(fake) == .alreadyUp(udc: "b.0"))
        fake.clearJournal()
        _ = try Self.up(fake, udc: "a.0")
        #expect(fake.journal == ["write aiden/UDC \"\"", "write aiden/UDC a.0"])
    }

    @Test func upCompletesATreeLeftHalfWay() throws {
        let fake = try ConfigfsEmulator()
        fake.fail("aiden/functions/ecm.usb0/host_addr", with: EIO)
        #expect(throws: GadgetError.self) { try Self.up(fake) }
        fake.clearJournal()
        _ = try Self.up(fake)
        #expect(
            fake.journal == [
                "write aiden/functions/ecm.usb0/host_addr 06:a1:de:7d:a1:f8",
                "link aiden/configs/c.1/ecm.usb0 -> aiden/functions/ecm.usb0",
                "write aiden/UDC dummy_udc.0",
            ])
    }

    @Test func downRemovesInTheKernelOrder() throws {
        let fake = try ConfigfsEmulator()
        _ = try Self.up(fake)
        fake.clearJournal()
        #expect(try Self.controller(fake).down() == .removed(wasBound: true))
        #expect(fake.journal == Self.downJournal)
        #expect(try FileManager.default.contentsOfDirectory(atPath: fake.paths.gadgets).isEmpty)
    }

    @Test func downWhenAbsentOrTwiceIsFine() throws {
        let fake = try ConfigfsEmulator()
        #expect(try Self.controller(fake).down() == .absent)
        _ = try Self.up(fake)
        _ = try Self.controller(fake).down()
        fake.clearJournal()
        #expect(try Self.controller(fake).down() == .absent)
        #expect(fake.journal.isEmpty)
        #expect(GadgetReport.absent.description == "gadget aiden is not set up: nothing to do")
    }

    @Test func downRemovesWhatOthersAddedToOurGadget() throws {
        let fake = try ConfigfsEmulator()
        _ = try Self.up(fake)
        let tree = POSIXGadgetTree()
        _ = try fake.makeDirectory(fake.paths.absolute("aiden/functions/acm.GS0"))
        try tree.makeLink(
            fake.paths.absolute("aiden/configs/c.1/acm.GS0"),
            target: fake.paths.absolute("aiden/functions/acm.GS0"))
        fake.clearJournal()
        #expect(try Self.controller(fake).down() == .removed(wasBound: true))
        #expect(fake.journal.contains("rm aiden/configs/c.1/acm.GS0"))
        #expect(fake.journal.contains("rmdir aiden/functions/acm.GS0"))
        #expect(fake.journal.last == "rmdir aiden")
    }

    @Test func downOfAnUnboundGadgetDoesNotWriteUDC() throws {
        let fake = try ConfigfsEmulator()
        _ = try Self.up(fake)
        try fake.write(fake.paths.absolute("aiden/UDC"), "\n")
        fake.clearJournal()
        #expect(try Self.controller(fake).down() == .removed(wasBound: false))
        #expect(fake.journal == Array(Self.downJournal.dropFirst()))
    }

    // MARK: Errors

    @Test func noConfigfs() throws {
        let fake = try ConfigfsEmulator(configfs: false)
        let expected = GadgetError.configfsMissing(path: fake.paths.gadgets)
        #expect(throws: expected) { try Self.up(fake) }
        #expect(throws: expected) { try Self.controller(fake).down() }
        #expect(expected.exitCode == 69)
        #expect(
            expected.description == "configfs usb_gadget not found at \(fake.paths.gadgets): load libcomposite "
                + "(modprobe libcomposite) and mount configfs (mount -t configfs none /sys/kernel/config)")
        #expect(fake.journal.isEmpty)
    }

    @Test(arguments: [[String]?.none, .some([])])
    func noUDC(udcs: [String]?) throws {
        let fake = try ConfigfsEmulator(udcs: udcs)
        #expect(throws: GadgetError.noUDC(classDirectory: fake.paths.udcClass)) { try Self.up(fake) }
        #expect(GadgetError.noUDC(classDirectory: "/sys/class/udc").exitCode == 69)
        #expect(fake.journal.isEmpty)
    }

    @Test func unknownUDC() throws {
        let fake = try ConfigfsEmulator(udcs: ["b.0", "a.0"])
        let expected = GadgetError.udcNotFound("fe980000.usb", available: ["a.0", "b.0"])
        #expect(throws: expected) { try Self.up(fake, udc: "fe980000.usb") }
        #expect(expected.description == "no USB device controller named fe980000.usb (available: a.0, b.0)")
        #expect(expected.exitCode == 69)
        #expect(fake.journal.isEmpty)
    }

    @Test func unknownUDCWhenTheClassCannotBeListedIsFoundAtBind() throws {
        let fake = try ConfigfsEmulator(udcs: nil)
        #expect(throws: GadgetError.udcNotFound("x.0", available: [])) { try Self.up(fake, udc: "x.0") }
        #expect(fake.journal.last == "write aiden/UDC x.0")
    }

    @Test func udcHeldByAnotherConfigfsGadget() throws {
        let fake = try ConfigfsEmulator()
        let other = fake.paths.absolute("g1")
        try fake.makeDirectory(other)
        try fake.write("\(other)/UDC", "dummy_udc.0\n")
        fake.clearJournal()
        let expected = GadgetError.udcBusy("dummy_udc.0", heldBy: "g1")
        #expect(throws: expected) { try Self.up(fake) }
        #expect(expected.exitCode == 69)
        #expect(expected.description.contains("gadget 'g1' is bound to it"))
        #expect(fake.journal.isEmpty)
    }

    @Test func udcHeldByALegacyGadgetDriver() throws {
        let fake = try ConfigfsEmulator()
        fake.hold("dummy_udc.0")
        let expected = GadgetError.udcBusy("dummy_udc.0", heldBy: nil)
        #expect(throws: expected) { try Self.up(fake) }
        #expect(expected.description.contains("another gadget driver holds it"))
        #expect(fake.journal.last == "write aiden/UDC dummy_udc.0")
    }

    @Test func kernelWithoutECM() throws {
        let fake = try ConfigfsEmulator()
        fake.removeFunctionType("ecm")
        let expected = GadgetError.functionUnavailable(path: fake.paths.absolute("aiden/functions/ecm.usb0"))
        #expect(throws: expected) { try Self.up(fake) }
        #expect(expected.exitCode == 69)
        #expect(expected.description.contains("modprobe usb_f_ecm"))
    }

    @Test(arguments: [String?.none, "uninitialized\n", "xyz"])
    func unusableMachineID(text: String?) throws {
        let fake = try ConfigfsEmulator(machineID: text)
        #expect {
            try Self.up(fake)
        } throws: { error in
            guard let error = error as? GadgetError, case let .machineID(path, _) = error else { return false }
            return path == fake.paths.machineID && error.exitCode == 1
                && error.description.hasPrefix("cannot derive the gadget's serial number and MAC addresses: ")
        }
        #expect(fake.journal.isEmpty)
    }

    @Test(arguments: ["", ".hidden", "a/b", "udc\n", String(repeating: "u", count: 129)])
    func invalidUDCName(name: String) throws {
        let fake = try ConfigfsEmulator()
        #expect(throws: GadgetError.invalidUDCName(name)) { try Self.up(fake, udc: name) }
        #expect(fake.journal.isEmpty)
    }

    @Test func aFailedWriteNamesThePathAndErrno() throws {
        let fake = try ConfigfsEmulator()
        fake.fail("aiden/idProduct", with: EIO)
        #expect {
            try Self.up(fake)
        } throws: { error in
            guard let error = error as? GadgetError else { return false }
            return error.exitCode == 1
                && error.description == "write \(fake.paths.absolute("aiden/idProduct")): Input/output error (errno 5)"
        }
    }

    @Test func aMissingAttributeHintsAtConfigfs() throws {
        let fake = try ConfigfsEmulator()
        fake.fail("aiden/bcdUSB", with: ENOENT)
        #expect {
            try Self.up(fake)
        } throws: { error in
            (error as? GadgetError)?.description.hasSuffix(
                "is \(fake.paths.configfs) a configfs mount with "
                    + "libcomposite loaded?") == true
        }
    }

    @Test func aFailedTeardownStopsAtTheStepThatFailed() throws {
        let fake = try ConfigfsEmulator()
        _ = try Self.up(fake)
        fake.fail("aiden/configs/c.1", with: EBUSY)
        fake.clearJournal()
        #expect(throws: GadgetError.self) { try Self.controller(fake).down() }
        #expect(fake.journal == Array(Self.downJournal.prefix(4)))
        // The next down finishes the job.
        fake.clearJournal()
        #expect(try Self.controller(fake).down() == .removed(wasBound: false))
        #expect(fake.journal == Array(Self.downJournal.suffix(4)))
    }
}
