import Testing

@testable import USBGadget

@Suite struct GadgetPlannerTests {
    static let identity = GadgetIdentity(
        serialNumber: "8FFA26AE04B1DBE4",
        deviceAddress: MACAddress(bytes: [0x02, 0xa1, 0xde, 0xa6, 0x08, 0x45])!,
        hostAddress: MACAddress(bytes: [0x06, 0xa1, 0xde, 0x7d, 0xa1, 0xf8])!)
    static let spec = GadgetSpec(vendorID: 0x1d6b, productID: 0x0104, identity: identity)

    /// Everything in place as the spec wants it.
    static func complete(boundTo udc: String?) -> GadgetObservation {
        var observed = GadgetObservation(boundUDC: udc)
        for entry in spec.entries {
            switch entry {
            case let .directory(path): observed.directories.insert(path)
            case let .attribute(path, value): observed.attributes[path] = value
            case let .link(path, _): observed.links.insert(path)
            }
        }
        return observed
    }

    @Test func specLaysOutTheGadgetInCreationOrder() {
        #expect(
            Self.spec.entries == [
                .directory("aiden"),
                .attribute("aiden/idVendor", "0x1d6b"),
                .attribute("aiden/idProduct", "0x0104"),
                .attribute("aiden/bcdDevice", "0x0100"),
                .attribute("aiden/bcdUSB", "0x0200"),
                .directory("aiden/strings/0x409"),
                .attribute("aiden/strings/0x409/manufacturer", "AidenBridge"),
                .attribute("aiden/strings/0x409/product", "Aiden board"),
                .attribute("aiden/strings/0x409/serialnumber", "8FFA26AE04B1DBE4"),
                .directory("aiden/configs/c.1"),
                .attribute("aiden/configs/c.1/MaxPower", "250"),
                .directory("aiden/configs/c.1/strings/0x409"),
                .attribute("aiden/configs/c.1/strings/0x409/configuration", "ECM network"),
                .directory("aiden/functions/ecm.usb0"),
                .attribute("aiden/functions/ecm.usb0/dev_addr", "02:a1:de:a6:08:45"),
                .attribute("aiden/functions/ecm.usb0/host_addr", "06:a1:de:7d:a1:f8"),
                .link("aiden/configs/c.1/ecm.usb0", target: "aiden/functions/ecm.usb0"),
            ])
    }

    @Test(arguments: [(UInt16(0x1d6b), "0x1d6b"), (0x0001, "0x0001"), (0xffff, "0xffff"), (0x0a0b, "0x0a0b")])
    func hexAsTheKernelPrintsIt(value: UInt16, text: String) {
        #expect(GadgetSpec.hex(value) == text)
    }

    @Test func freshTreeGetsEveryEntryThenBind() throws {
        let plan = GadgetPlanner.bringUp(Self.spec, udc: "dummy_udc.0", observed: GadgetObservation())
        guard case let .apply(steps) = plan else { Issue.record("expected steps, got \(plan)"); return }
        #expect(steps.count == Self.spec.entries.count + 1)
        #expect(steps.first == .makeDirectory("aiden"))
        #expect(steps.last == .bind(gadget: "aiden", udc: "dummy_udc.0"))
        #expect(
            steps.firstIndex(of: .makeDirectory("aiden/functions/ecm.usb0"))!
                < steps.firstIndex(of: .makeLink("aiden/configs/c.1/ecm.usb0", target: "aiden/functions/ecm.usb0"))!)
        #expect(!steps.contains(.unbind(gadget: "aiden")))
    }

    @Test func boundToTheSameUDCAsSpecifiedIsNothingToDo() {
        #expect(
            GadgetPlanner.bringUp(Self.spec, udc: "u.0", observed: Self.complete(boundTo: "u.0"))
                == .alreadyUp(udc: "u.0"))
    }

    @Test func completeButUnboundOnlyBinds() {
        #expect(
            GadgetPlanner.bringUp(Self.spec, udc: "u.0", observed: Self.complete(boundTo: nil))
                == .apply([.bind(gadget: "aiden", udc: "u.0")]))
    }

    @Test func boundElsewhereMovesToTheRequestedUDC() {
        #expect(
            GadgetPlanner.bringUp(Self.spec, udc: "u.1", observed: Self.complete(boundTo: "u.0"))
                == .apply([.unbind(gadget: "aiden"), .bind(gadget: "aiden", udc: "u.1")]))
    }

    @Test func aChangedValueOnABoundGadgetIsRewrittenBetweenUnbindAndBind() {
        var observed = Self.complete(boundTo: "u.0")
        observed.attributes["aiden/idVendor"] = "0x1234"
        observed.attributes["aiden/functions/ecm.usb0/dev_addr"] = "5e:11:22:33:44:55"
        #expect(
            GadgetPlanner.bringUp(Self.spec, udc: "u.0", observed: observed)
                == .apply([
                    .unbind(gadget: "aiden"),
                    .removeLink("aiden/configs/c.1/ecm.usb0"),
                    .write("aiden/idVendor", "0x1d6b"),
                    .write("aiden/functions/ecm.usb0/dev_addr", "02:a1:de:a6:08:45"),
                    .makeLink("aiden/configs/c.1/ecm.usb0", target: "aiden/functions/ecm.usb0"),
                    .bind(gadget: "aiden", udc: "u.0"),
                ]))
    }

    @Test func aChangedGadgetValueKeepsTheFunctionLinked() {
        var observed = Self.complete(boundTo: "u.0")
        observed.attributes["aiden/strings/0x409/product"] = "Other"
        #expect(
            GadgetPlanner.bringUp(Self.spec, udc: "u.0", observed: observed)
                == .apply([
                    .unbind(gadget: "aiden"), .write("aiden/strings/0x409/product", "Aiden board"),
                    .bind(gadget: "aiden", udc: "u.0"),
                ]))
    }

    @Test func aPartialTreeIsCompleted() {
        var observed = Self.complete(boundTo: nil)
        observed.links = []
        observed.directories.remove("aiden/functions/ecm.usb0")
        observed.attributes["aiden/functions/ecm.usb0/dev_addr"] = nil
        observed.attributes["aiden/functions/ecm.usb0/host_addr"] = nil
        #expect(
            GadgetPlanner.bringUp(Self.spec, udc: "u.0", observed: observed)
                == .apply([
                    .makeDirectory("aiden/functions/ecm.usb0"),
                    .write("aiden/functions/ecm.usb0/dev_addr", "02:a1:de:a6:08:45"),
                    .write("aiden/functions/ecm.usb0/host_addr", "06:a1:de:7d:a1:f8"),
                    .makeLink("aiden/configs/c.1/ecm.usb0", target: "aiden/functions/ecm.usb0"),
                    .bind(gadget: "aiden", udc: "u.0"),
                ]))
    }

    @Test func aUDCAnotherGadgetHoldsIsBusy() {
        let observed = GadgetObservation(otherBindings: ["zeta": "u.0", "g1": "u.0", "g2": "u.1"])
        #expect(GadgetPlanner.bringUp(Self.spec, udc: "u.0", observed: observed) == .udcBusy(udc: "u.0", heldBy: "g1"))
    }

    @Test(arguments: [
        (String?.none, String?.none, [String]?.some(["b.0", "a.0"]), GadgetPlanner.UDCChoice.use("a.0")),
        (nil, nil, [], .noneAvailable),
        (nil, nil, nil, .noneAvailable),
        (nil, "b.0", ["a.0", "b.0"], .use("b.0")),
        (nil, "gone.0", ["a.0"], .use("a.0")),
        (nil, "b.0", nil, .use("b.0")),
        ("b.0", "a.0", ["a.0", "b.0"], .use("b.0")),
        ("c.0", nil, ["b.0", "a.0"], .notFound("c.0", available: ["a.0", "b.0"])),
        ("c.0", nil, nil, .use("c.0")),
    ])
    func chooseUDC(requested: String?, bound: String?, available: [String]?, expected: GadgetPlanner.UDCChoice) {
        #expect(GadgetPlanner.chooseUDC(requested: requested, bound: bound, available: available) == expected)
    }

    @Test func tearDownFollowsTheKernelOrder() {
        let listing = GadgetListing(
            boundUDC: "u.0",
            configurations: [
                .init(name: "c.1", functionLinks: ["acm.GS0", "ecm.usb0"], languages: ["0x409"]),
                .init(name: "c.2", functionLinks: ["ecm.usb0"], languages: []),
            ],
            functions: ["acm.GS0", "ecm.usb0"], languages: ["0x407", "0x409"], osDescriptorLinks: ["c.1"])
        #expect(
            GadgetPlanner.tearDown(listing) == [
                .unbind(gadget: "aiden"),
                .removeLink("aiden/os_desc/c.1"),
                .removeLink("aiden/configs/c.1/acm.GS0"),
                .removeLink("aiden/configs/c.1/ecm.usb0"),
                .removeLink("aiden/configs/c.2/ecm.usb0"),
                .removeDirectory("aiden/configs/c.1/strings/0x409"),
                .removeDirectory("aiden/configs/c.1"),
                .removeDirectory("aiden/configs/c.2"),
                .removeDirectory("aiden/functions/acm.GS0"),
                .removeDirectory("aiden/functions/ecm.usb0"),
                .removeDirectory("aiden/strings/0x407"),
                .removeDirectory("aiden/strings/0x409"),
                .removeDirectory("aiden"),
            ])
    }

    @Test func tearDownOfAnUnboundEmptyGadgetOnlyRemovesIt() {
        #expect(GadgetPlanner.tearDown(GadgetListing()) == [.removeDirectory("aiden")])
    }
}
