import NetworkAddress
import Testing

@testable import Configuration

@Suite struct PhoneConfigurationTests {
    @Test func defaultsAreTheContractValues() throws {
        let defaults = PhoneConfiguration.defaults
        #expect(defaults.board.url.description == "http://192.168.42.1:8080")
        #expect(defaults.wake.transport == .bluez)
        #expect(defaults.wake.loopbackListen == (try SocketEndpoint("127.0.0.1:47800")))
        #expect(defaults.wake.adapter == "hci0")
        #expect(defaults.wake.address == nil)
        #expect(defaults.usb.vendorID == 0x1d6b)
        #expect(defaults.usb.productID == 0x0104)
        #expect(defaults.phone.id == nil)
        // The standard place for whoever runs it (PhonePaths); /var/lib/aiden-phone as root.
        #expect(defaults.state.directory == nil)
        #expect(defaults.log.level == .info)
    }

    @Test(arguments: [
        "", "# empty\n", "[board]\n", "[phone]\nid = \"\"\n", "[board]\nurl = \"http://192.168.42.1:8080/\"\n",
        "[wake]\naddress = \"\"\n", "[state]\ndirectory = \"\"\n",
    ])
    func filesThatSetNothingNewGiveTheDefaults(text: String) throws {
        #expect(try parsePhone(text).get() == .defaults)
    }

    /// The documented file names /var/lib/aiden-phone, root's standard place, explicitly: it is kept
    /// as written (so it applies to a person's client too), and everything else is the default.
    @Test func theContractFileParsesToTheDefaultsWithRootsStateDirectory() throws {
        var expected = PhoneConfiguration.defaults
        expected.state.directory = "/var/lib/aiden-phone"
        #expect(try parsePhone(contractPhoneFile).get() == expected)
    }

    @Test func everyKeyCanBeSet() throws {
        let text = """
            [board]
            url = "http://127.0.0.1:18080"
            [wake]
            transport = "loopback"
            loopback_listen = "127.0.0.1:0"
            adapter = "hci1"
            address = "aa:bb:cc:dd:ee:0f"
            [usb]
            vendor_id = "0x1234"
            product_id = "0xabcd"
            [phone]
            id = "lab-phone_1.a:b"
            [state]
            directory = "/tmp/phone-state"
            [log]
            level = "warning"
            """
        let configuration = try parsePhone(text).get()
        #expect(configuration.board.url == BoardURL(host: .address(IPAddress(v4: 127, 0, 0, 1)), port: 18080))
        #expect(configuration.wake.transport == .loopback)
        #expect(configuration.wake.loopbackListen == (try SocketEndpoint("127.0.0.1:0")))
        #expect(configuration.wake.adapter == "hci1")
        #expect(configuration.wake.address == "AA:BB:CC:DD:EE:0F")
        #expect(configuration.usb.vendorID == 0x1234)
        #expect(configuration.usb.productID == 0xabcd)
        #expect(configuration.phone.id == "lab-phone_1.a:b")
        #expect(configuration.state.directory == "/tmp/phone-state")
        #expect(configuration.log.level == .warning)
    }

    @Test(arguments: [
        ("[board]\nurl = 8080\n", "phone.toml:2: board.url: expected a string, got integer"),
        (
            "[board]\nurl = [\"http://192.168.42.1\"]\n",
            "phone.toml:2: board.url: expected a string, got array of strings"
        ),
        ("[wake]\ntransport = 1\n", "phone.toml:2: wake.transport: expected a string, got integer"),
        (
            "[wake]\nloopback_listen = 47800\n",
            "phone.toml:2: wake.loopback_listen: expected a string like \"127.0.0.1:47800\", got integer"
        ),
        ("[wake]\nadapter = true\n", "phone.toml:2: wake.adapter: expected a string, got boolean"),
        ("[wake]\naddress = 0\n", "phone.toml:2: wake.address: expected a string, got integer"),
        ("[usb]\nvendor_id = 7531\n", "phone.toml:2: usb.vendor_id: expected a string like \"0x1d6b\", got integer"),
        (
            "[usb]\nproduct_id = 0x0104\n",
            "phone.toml:2: usb.product_id: expected a string like \"0x1d6b\", got integer"
        ),
        ("[phone]\nid = 42\n", "phone.toml:2: phone.id: expected a string, got integer"),
        ("[state]\ndirectory = false\n", "phone.toml:2: state.directory: expected a string, got boolean"),
        ("[log]\nlevel = []\n", "phone.toml:2: log.level: expected a string, got empty array"),
    ])
    func wrongTypesNameFileLineKeyAndBothTypes(text: String, description: String) throws {
        let error = try #require(parsePhone(text).failure)
        #expect(error.kind == .wrongType)
        #expect(error.description == description)
    }

    @Test(arguments: [
        (
            "[board]\nurl = \"https://192.168.42.1\"\n", "board.url",
            "\"https://192.168.42.1\": https is not supported: the board serves plain HTTP on the USB link"
        ),
        (
            "[board]\nurl = \"http://board.local:8080\"\n", "board.url",
            "\"http://board.local:8080\": 'board.local' is not an IP address or \"localhost\" (names are not resolved)"
        ),
        (
            "[board]\nurl = \"http://192.168.42.1:8080/api\"\n", "board.url",
            "\"http://192.168.42.1:8080/api\": a path (\"/api\") is not allowed; give only http://host:port"
        ),
        ("[wake]\ntransport = \"usb\"\n", "wake.transport", "\"usb\" is not one of \"bluez\", \"loopback\""),
        (
            "[wake]\nloopback_listen = \"localhost:47800\"\n", "wake.loopback_listen",
            "'localhost:47800': 'localhost' is not an IP address (host names are not resolved)"
        ),
        ("[wake]\nadapter = \"hci-1\"\n", "wake.adapter", "\"hci-1\" is not an adapter name like \"hci0\""),
        (
            "[wake]\naddress = \"AA:BB:CC:DD:EE\"\n", "wake.address",
            "\"AA:BB:CC:DD:EE\" is not a Bluetooth address like \"AA:BB:CC:DD:EE:FF\""
        ),
        (
            "[wake]\naddress = \"AA-BB-CC-DD-EE-FF\"\n", "wake.address",
            "\"AA-BB-CC-DD-EE-FF\" is not a Bluetooth address like \"AA:BB:CC:DD:EE:FF\""
        ),
        (
            "[wake]\naddress = \"AA:BB:CC:DD:EE:FG\"\n", "wake.address",
            "\"AA:BB:CC:DD:EE:FG\" is not a Bluetooth address like \"AA:BB:CC:DD:EE:FF\""
        ),
        (
            "[wake]\naddress = \"A:BB:CC:DD:EE:FFF\"\n", "wake.address",
            "\"A:BB:CC:DD:EE:FFF\" is not a Bluetooth address like \"AA:BB:CC:DD:EE:FF\""
        ),
        (
            "[usb]\nvendor_id = \"0x10000\"\n", "usb.vendor_id",
            "\"0x10000\" is not a USB id: expected \"0x\" and 1-4 hex digits, e.g. \"0x1d6b\""
        ),
        (
            "[phone]\nid = \"my phone\"\n", "phone.id",
            "\"my phone\" is not a phone id (letters, digits, '.', '_', ':', '-')"
        ),
        ("[phone]\nid = \"a/b\"\n", "phone.id", "\"a/b\" is not a phone id (letters, digits, '.', '_', ':', '-')"),
        (
            "[phone]\nid = \"\(String(repeating: "p", count: 129))\"\n", "phone.id",
            "a phone id is at most 128 characters, got 129"
        ),
        ("[state]\ndirectory = \"./state\"\n", "state.directory", "\"./state\" is not an absolute path"),
        (
            "[log]\nlevel = \"warn\"\n", "log.level",
            "\"warn\" is not one of \"error\", \"warning\", \"notice\", \"info\", \"debug\""
        ),
    ])
    func invalidValuesNameTheKeyAndTheReason(text: String, key: String, message: String) throws {
        let error = try #require(parsePhone(text).failure)
        #expect(error.kind == .invalidValue)
        #expect(error.line == 2)
        #expect(error.key == key)
        #expect(error.message == message)
    }

    @Test func aPhoneIdOf128CharactersIsAccepted() throws {
        let id = String(repeating: "p", count: 128)
        #expect(try parsePhone("[phone]\nid = \"\(id)\"\n").get().phone.id == id)
    }

    @Test(arguments: [
        ("[board]\nhost = \"x\"\n", "phone.toml:2: board.host: unknown key in [board] (known: url, interface)"),
        (
            "[wake]\nloopback_target = \"127.0.0.1:1\"\n",
            "phone.toml:2: wake.loopback_target: unknown key in [wake] (known: transport, loopback_listen, adapter, "
                + "address)"
        ),
        ("[usb]\nudc = \"\"\n", "phone.toml:2: usb.udc: unknown key in [usb] (known: vendor_id, product_id)"),
        ("[phone]\nname = \"x\"\n", "phone.toml:2: phone.name: unknown key in [phone] (known: id)"),
        ("[state]\npath = \"/x\"\n", "phone.toml:2: state.path: unknown key in [state] (known: directory)"),
        ("[log]\nlevels = \"info\"\n", "phone.toml:2: log.levels: unknown key in [log] (known: level)"),
        ("[gadget]\n", "phone.toml:1: gadget: unknown table [gadget] (known: board, wake, usb, phone, state, log)"),
        (
            "id = \"x\"\n",
            "phone.toml:1: id: unknown key at the top level; keys belong under a table ([board], [wake], [usb], "
                + "[phone], [state], [log])"
        ),
    ])
    func unknownKeysAndTablesAreErrors(text: String, description: String) throws {
        let error = try #require(parsePhone(text).failure)
        #expect(error.kind == .unknownKey)
        #expect(error.description == description)
    }

    @Test func syntaxErrorsNameThePhoneFile() throws {
        let error = try #require(parsePhone("[board]\nurl = \"http://x\n", file: "/etc/aiden/phone.toml").failure)
        #expect(
            error.description == "/etc/aiden/phone.toml:2: board.url: unterminated string: missing closing '\"' "
                + "before the end of the line")
    }

    // MARK: LIVE_ACTIVITY_PHONE_ID

    @Test(
        arguments: [
            // (configured id, environment, resulting id)
            (nil, [:], nil),
            ("from-file", [:], "from-file"),
            (nil, ["LIVE_ACTIVITY_PHONE_ID": "from-env"], "from-env"),
            ("from-file", ["LIVE_ACTIVITY_PHONE_ID": "from-env"], "from-env"),
            ("from-file", ["LIVE_ACTIVITY_PHONE_ID": ""], "from-file"),
            (nil, ["LIVE_ACTIVITY_PHONE_ID": ""], nil),
            ("from-file", ["OTHER": "x", "live_activity_phone_id": "lower"], "from-file"),
        ] as [(String?, [String: String], String?)])
    func environmentOverridesThePhoneId(
        configured: String?, environment: [String: String], expected: String?
    )
        throws
    {
        var configuration = PhoneConfiguration.defaults
        configuration.phone.id = configured
        let result = try configuration.applyingEnvironment(environment)
        #expect(result.phone.id == expected)
        var rest = result
        rest.phone.id = configuration.phone.id
        #expect(rest == configuration, "only phone.id may change")
    }

    @Test(arguments: [
        (
            "has space",
            "environment: LIVE_ACTIVITY_PHONE_ID: \"has space\" is not a phone id (letters, digits, '.', "
                + "'_', ':', '-')"
        ),
        ("ü", "environment: LIVE_ACTIVITY_PHONE_ID: \"ü\" is not a phone id (letters, digits, '.', '_', ':', '-')"),
        (
            String(repeating: "x", count: 129),
            "environment: LIVE_ACTIVITY_PHONE_ID: a phone id is at most 128 characters, got 129"
        ),
    ])
    func invalidEnvironmentPhoneIdsAreRejected(value: String, description: String) throws {
        let result = Result { () throws(ConfigurationError) in
            try PhoneConfiguration.defaults.applyingEnvironment(["LIVE_ACTIVITY_PHONE_ID": value])
        }
        let error = try #require(result.failure)
        #expect(error.kind == .invalidValue)
        #expect(error.line == nil)
        #expect(error.description == description)
    }
}
