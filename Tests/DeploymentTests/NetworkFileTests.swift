import Configuration
import NetworkAddress
import Testing

/// The .link and .network files: only keys systemd 252 knows in these sections, and the names,
/// properties and addresses agree with the udev rules and the code's defaults.
@Suite struct NetworkFileTests {
    static let linkKeys: [String: Set<String>] = [
        "Match": ["Property", "OriginalName", "Driver", "MACAddress", "PermanentMACAddress", "Path", "Type", "Kind"],
        "Link": ["Description", "Name", "NamePolicy", "MACAddressPolicy", "MACAddress", "AlternativeNamesPolicy"],
    ]
    static let networkKeys: [String: Set<String>] = [
        "Match": ["Name", "Property", "MACAddress", "Driver", "Type", "Kind"],
        "Link": ["RequiredForOnline", "ActivationPolicy", "MTUBytes", "Unmanaged"],
        "Network": [
            "Description", "Address", "Gateway", "DHCP", "ConfigureWithoutCarrier", "IgnoreCarrierLoss",
            "LinkLocalAddressing", "IPv6AcceptRA", "DNS", "DefaultRouteOnDevice",
        ],
    ]

    static func file(_ name: String) throws -> INIFile { INIFile(try Repository.text("systemd/network/\(name)")) }

    @Test func filesAreTheFourExpected() throws {
        #expect(
            try Repository.files(in: "systemd/network", suffix: "") == [
                "systemd/network/70-aiden-board.link", "systemd/network/70-aiden-board.network",
                "systemd/network/70-aiden-gadget.link", "systemd/network/70-aiden-gadget.network",
            ])
    }

    @Test(arguments: [
        "70-aiden-board.link", "70-aiden-gadget.link", "70-aiden-board.network",
        "70-aiden-gadget.network",
    ])
    func onlyKnownSectionsAndKeys(name: String) throws {
        let file = try Self.file(name)
        let known = name.hasSuffix(".link") ? Self.linkKeys : Self.networkKeys
        #expect(file.malformed.isEmpty)
        for entry in file.entries {
            #expect(
                known[entry.section]?.contains(entry.key) == true,
                "\(name):\(entry.line): [\(entry.section)] \(entry.key)")
        }
    }

    /// udev rule sets AIDEN_ECM=<role>; the .link matches it and names the interface; the .network
    /// matches that name. Names fit the kernel's 15 characters.
    @Test(arguments: [
        ("gadget", "aiden0", "udev/70-aiden-gadget.rules"),
        ("board", "aidenboard0", "udev/70-aiden-phone.rules"),
    ])
    func ruleLinkAndNetworkAgree(role: String, interface: String, rules: String) throws {
        let link = try Self.file("70-aiden-\(role).link")
        let network = try Self.file("70-aiden-\(role).network")
        #expect(link.value("Match", "Property") == "AIDEN_ECM=\(role)")
        #expect(link.value("Link", "Name") == interface)
        #expect(link.value("Link", "MACAddressPolicy") == "none")
        #expect(network.value("Match", "Name") == interface)
        #expect(interface.utf8.count <= 15)
        let ruleText = try Repository.text(rules)
        let parsed = try UdevRule.parse(file: ruleText).map { try $0.rule.get() }
        #expect(parsed.contains { $0.value("ENV", "AIDEN_ECM") == role })
    }

    @Test func boardEndServesTheDefaultListenAddress() throws {
        let network = try Self.file("70-aiden-gadget.network")
        let address = try #require(network.value("Network", "Address"))
        let defaults = BoardConfiguration.defaults
        #expect(address == "\(defaults.http.listen[0].address)/\(BoardConfiguration.ecmSubnet.prefixLength)")
        #expect(BoardConfiguration.ecmSubnet.contains(try #require(IPAddress(address.prefix { $0 != "/" }))))
        #expect(network.value("Network", "ConfigureWithoutCarrier") == "yes")
        #expect(network.value("Network", "Gateway") == nil)
        #expect(network.value("Network", "LinkLocalAddressing") == "no")
        #expect(network.value("Link", "RequiredForOnline") == "no")
    }

    @Test func hostEndIsInTheSubnetWithoutADefaultRoute() throws {
        let network = try Self.file("70-aiden-board.network")
        let address = try #require(network.value("Network", "Address"))
        #expect(address == "192.168.42.2/24")
        #expect(BoardConfiguration.ecmSubnet.contains(try #require(IPAddress(address.prefix { $0 != "/" }))))
        #expect(PhoneConfiguration.defaults.board.url.description.contains("192.168.42.1:8080"))
        #expect(network.value("Network", "Gateway") == nil)
        #expect(network.value("Network", "DefaultRouteOnDevice") == nil)
        #expect(network.value("Network", "DHCP") == "no")
        #expect(network.value("Link", "RequiredForOnline") == "no")
    }
}
