import Configuration
import Glibc
import Testing

@testable import USBGadget

/// The rule files parse as udev would load them, and say what the rest of the system expects.
@Suite struct UdevRuleTests {
    static func rules(_ file: String) throws -> [UdevRule] {
        try UdevRule.parse(file: Repository.text(file)).map { try $0.rule.get() }
    }

    @Test func everyRuleFileParses() throws {
        let files = try Repository.files(in: "udev", suffix: ".rules")
        #expect(files == ["udev/70-aiden-gadget.rules", "udev/70-aiden-phone.rules"])
        for file in files {
            for (line, rule) in UdevRule.parse(file: try Repository.text(file)) {
                if case let .failure(problem) = rule { Issue.record("\(file):\(line): \(problem)") }
            }
        }
    }

    /// The checker itself: lines udev would reject or misread.
    @Test(arguments: [
        ("SUBSYSTEM==\"net\" TAG+=\"systemd\"", "expected ','"),
        ("SUBSYSTEM==net, TAG+=\"systemd\"", "double quotes"),
        ("SUBSYSTEM==\"net\", TAG+=\"systemd", "unterminated"),
        ("SUBSYSTEMS=\"usb\", GROUP=\"aiden\"", "does not take ="),
        ("SUBSYSTEM==\"usb\", GROUP==\"aiden\"", "does not take =="),
        ("SUBSYSTEM==\"usb\", GROUP+=\"aiden\"", "does not take +="),
        ("SUBSYSTEM==\"usb\", ATTR=\"x\"", "needs {attribute}"),
        ("SUBSYSTEM{x}==\"usb\", TAG+=\"systemd\"", "takes no {attribute}"),
        ("SUBSYTEM==\"usb\", TAG+=\"systemd\"", "unknown key SUBSYTEM"),
        ("TAG+=\"systemd\"", "without a match"),
        ("SUBSYSTEM==\"usb\"", "without an assignment"),
        ("SUBSYSTEM==\"usb\", TAG+=\"systemd\",", "trailing ','"),
        ("subsystem==\"usb\", TAG+=\"systemd\"", "expected a KEY"),
    ])
    func checkerCatches(line: String, problem: String) {
        #expect {
            _ = try UdevRule(line)
        } throws: { error in
            "\(error)".contains(problem)
        }
    }

    @Test func gadgetRuleMatchesTheDerivedBoardAddressOnly() throws {
        let rules = try Self.rules("udev/70-aiden-gadget.rules")
        let net = try #require(rules.first { $0.value("SUBSYSTEM") == "net" })
        let pattern = try #require(net.value("ATTR", "address"))
        #expect(net.value("ENV", "AIDEN_ECM") == "gadget")
        #expect(net.tokens.contains { $0.key == "TAG" && $0.op == "+=" && $0.value == "systemd" })
        for machine in [
            "0123456789abcdef0123456789abcdef", "3d1219c7c4c5404aaa1f6d2a48adfda4",
            "ffffffffffffffffffffffffffffff00",
        ] {
            let identity = GadgetIdentity(machineID: try #require(MachineID(fileText: machine)))
            #expect(fnmatch(pattern, identity.deviceAddress.description, 0) == 0, "\(identity.deviceAddress)")
            #expect(fnmatch(pattern, identity.hostAddress.description, 0) != 0, "\(identity.hostAddress)")
        }
        #expect(fnmatch(pattern, "02:00:00:42:00:01", 0) != 0)
        let udc = try #require(rules.first { $0.value("SUBSYSTEM") == "udc" })
        // Not only on "add": the "change" event of a bound UDC must keep the systemd tag.
        let action = try #require(udc.tokens.first { $0.key == "ACTION" })
        #expect(action.op == "!=" && action.value == "remove")
        #expect(udc.value("ENV", "SYSTEMD_WANTS") == "aiden-udc.target")
    }

    @Test func phoneRulesMatchTheBoardsIdsAndStartTheClient() throws {
        let rules = try Self.rules("udev/70-aiden-phone.rules")
        let gadget = BoardConfiguration.defaults.gadget
        let usb = PhoneConfiguration.defaults.usb
        #expect(gadget.vendorID == usb.vendorID && gadget.productID == usb.productID)
        let vendor = String(GadgetSpec.hex(gadget.vendorID).dropFirst(2))
        let product = String(GadgetSpec.hex(gadget.productID).dropFirst(2))
        let manufacturer = GadgetSpec(
            vendorID: 0, productID: 0,
            identity: GadgetIdentity(
                machineID: try #require(MachineID(fileText: "0123456789abcdef0123456789abcdef")))
        ).manufacturer

        let device = try #require(rules.first { $0.value("SUBSYSTEM") == "usb" })
        #expect(device.value("ENV", "DEVTYPE") == "usb_device")
        #expect(device.value("ATTR", "idVendor") == vendor)
        #expect(device.value("ATTR", "idProduct") == product)
        #expect(device.value("ATTR", "manufacturer") == manufacturer)
        // The node keeps udev's defaults: nothing on the host opens it (libusb's hotplug reads sysfs and udev),
        // so no group, mode, owner or seat ACL grants anyone raw USB access to the board.
        #expect(device.value("GROUP") == nil)
        #expect(device.value("MODE") == nil)
        #expect(device.value("OWNER") == nil)
        #expect(device.value("ENV", "SYSTEMD_WANTS") == nil)
        // The person's user manager starts the user unit (the device unit needs the systemd tag for that).
        let tags = device.tokens.filter { $0.key == "TAG" }.map(\.value)
        #expect(tags == ["systemd"], "\(tags)")
        #expect(device.value("ENV", "SYSTEMD_USER_WANTS") == "aiden-phone.service")
        #expect(try Repository.files(in: "systemd/user", suffix: ".service") == ["systemd/user/aiden-phone.service"])
        // Not only on "add": a "change" that dropped the tag would unplug the device unit and stop the client.
        let action = try #require(device.tokens.first { $0.key == "ACTION" })
        #expect(action.op == "!=" && action.value == "remove")

        let net = try #require(rules.first { $0.value("SUBSYSTEM") == "net" })
        #expect(net.value("ATTRS", "idVendor") == vendor)
        #expect(net.value("ATTRS", "idProduct") == product)
        #expect(net.value("ATTRS", "manufacturer") == manufacturer)
        #expect(net.value("ENV", "AIDEN_ECM") == "board")
    }

    /// udev applies .link files in 80-net-setup-link.rules: our properties must be set before.
    @Test func rulesRunBeforeNetSetupLink() throws {
        for file in try Repository.files(in: "udev", suffix: ".rules") {
            let name = String(file.dropFirst("udev/".count))
            #expect(name < "80-net-setup-link.rules", "\(name)")
        }
    }

    /// No rule hands out a device node: neither side opens one (the board writes configfs, the phone host reads
    /// sysfs and udev), so neither needs a group, a mode, an owner or a seat ACL on one.
    @Test func noRuleGrantsADeviceNode() throws {
        for file in try Repository.files(in: "udev", suffix: ".rules") {
            for rule in try Self.rules(file) {
                for key in ["GROUP", "MODE", "OWNER"] { #expect(rule.value(key) == nil, "\(file): \(key)") }
                let tags = rule.tokens.filter { $0.key == "TAG" }.map(\.value)
                #expect(!tags.contains("uaccess"), "\(file): \(tags)")
            }
        }
    }
}
