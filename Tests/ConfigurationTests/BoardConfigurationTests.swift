import NetworkAddress
import Testing

@testable import Configuration

@Suite struct BoardConfigurationTests {
    @Test func defaultsAreTheContractValues() throws {
        let defaults = BoardConfiguration.defaults
        #expect(defaults.liveActivity.enabled == true)
        #expect(defaults.liveActivity.retentionSeconds == 600)
        #expect(defaults.http.listen == [try SocketEndpoint("192.168.42.1:8080")])
        #expect(defaults.http.allowedSubnets == [try Subnet("192.168.42.0/24")])
        #expect(defaults.wake.transport == .bluez)
        #expect(defaults.wake.loopbackTarget == (try SocketEndpoint("127.0.0.1:47800")))
        #expect(defaults.wake.coalesceMilliseconds == 750)
        #expect(defaults.wake.adapter == "hci0")
        #expect(defaults.wake.characteristicFlags == ["encrypt-read", "notify"])
        #expect(defaults.agent.socket == "/run/aiden/agent.sock")
        #expect(defaults.gadget.vendorID == 0x1d6b)
        #expect(defaults.gadget.productID == 0x0104)
        #expect(defaults.gadget.udc == nil)
        #expect(defaults.state.directory == "/var/lib/aiden-board")
        #expect(defaults.log.level == .info)
    }

    @Test func theContractFileParsesToTheDefaults() throws {
        #expect(try parseBoard(contractBoardFile).get() == .defaults)
    }

    @Test(arguments: [
        "", "\n", "# nothing set\n", "[live_activity]\nenabled = true", "[live_activity]\nenabled = true\n",
        "[live_activity]\r\nenabled = true\r\n", "\u{FEFF}[live_activity]\nenabled = true\n",
        "[http]\n[wake]\n[agent]\n[gadget]\n[state]\n[log]\n", "[log]\nlevel = \"info\"\n",
    ])
    func filesThatSetNothingNewGiveTheDefaults(text: String) throws {
        #expect(try parseBoard(text).get() == .defaults)
    }

    @Test func everyKeyCanBeSet() throws {
        let text = """
            [live_activity]
            enabled = false
            retention_seconds = 604_800

            [http]
            listen = [
                "127.0.0.1:0",     # tests: any free port
                "[::]:8080",
                "[::1]:8081",      # trailing comma below is fine
            ]
            allowed_subnets = ["10.0.0.0/8", 'fd00::/8']

            [wake]
            transport = "loopback"
            loopback_target = "[::1]:47801"
            coalesce_milliseconds = 50
            adapter = "hci12"
            characteristic_flags = ["read", "notify"]

            [agent]
            socket = "/tmp/aiden test/agent.sock"

            [gadget]
            vendor_id = "0xABCD"
            product_id = "0x1"
            udc = "dummy_udc.0"

            [state]
            directory = "/srv/aiden"

            [log]
            level = "debug"
            """
        let configuration = try parseBoard(text).get()
        #expect(configuration.liveActivity.enabled == false)
        #expect(configuration.liveActivity.retentionSeconds == 604_800)
        #expect(
            configuration.http.listen == [
                try SocketEndpoint("127.0.0.1:0"), try SocketEndpoint("[::]:8080"), try SocketEndpoint("[::1]:8081"),
            ])
        #expect(configuration.http.allowedSubnets == [try Subnet("10.0.0.0/8"), try Subnet("fd00::/8")])
        #expect(configuration.wake.transport == .loopback)
        #expect(configuration.wake.loopbackTarget == (try SocketEndpoint("[::1]:47801")))
        #expect(configuration.wake.coalesceMilliseconds == 50)
        #expect(configuration.wake.adapter == "hci12")
        #expect(configuration.wake.characteristicFlags == ["read", "notify"])
        #expect(configuration.agent.socket == "/tmp/aiden test/agent.sock")
        #expect(configuration.gadget.vendorID == 0xabcd)
        #expect(configuration.gadget.productID == 0x0001)
        #expect(configuration.gadget.udc == "dummy_udc.0")
        #expect(configuration.state.directory == "/srv/aiden")
        #expect(configuration.log.level == .debug)
    }

    @Test func keysNotWrittenKeepTheirDefaults() throws {
        let configuration = try parseBoard("[wake]\ncoalesce_milliseconds = 1000\n").get()
        var expected = BoardConfiguration.defaults
        expected.wake.coalesceMilliseconds = 1000
        #expect(configuration == expected)
    }

    @Test func anEmptySubnetListAdmitsOnlyLoopback() throws {
        #expect(try parseBoard("[http]\nallowed_subnets = []\n").get().http.allowedSubnets == [])
    }

    @Test(arguments: LogConfiguration.Level.allCases)
    func everyLogLevelParses(level: LogConfiguration.Level) throws {
        #expect(try parseBoard("[log]\nlevel = \"\(level.rawValue)\"\n").get().log.level == level)
    }

    @Test(arguments: [
        (
            "[live_activity]\nenabled = \"yes\"\n",
            "board.toml:2: live_activity.enabled: expected a boolean (true or false), got string"
        ),
        (
            "[live_activity]\nenabled = 1\n",
            "board.toml:2: live_activity.enabled: expected a boolean (true or false), got integer"
        ),
        (
            "[live_activity]\nretention_seconds = \"600\"\n",
            "board.toml:2: live_activity.retention_seconds: expected an integer, got string"
        ),
        (
            "[live_activity]\nretention_seconds = true\n",
            "board.toml:2: live_activity.retention_seconds: expected an integer, got boolean"
        ),
        (
            "[http]\nlisten = \"192.168.42.1:8080\"\n",
            "board.toml:2: http.listen: expected an array of strings, got string"
        ),
        ("\n[http]\n\nlisten = 8080\n", "board.toml:4: http.listen: expected an array of strings, got integer"),
        ("[http]\nlisten = [8080]\n", "board.toml:2: http.listen: expected an array of strings, got array of integers"),
        (
            "[http]\nlisten = [\"1.2.3.4:80\", 8080]\n",
            "board.toml:2: http.listen: expected an array of strings, got mixed array"
        ),
        (
            "[http]\nallowed_subnets = \"192.168.42.0/24\"\n",
            "board.toml:2: http.allowed_subnets: expected an array of strings, got string"
        ),
        ("[wake]\ntransport = true\n", "board.toml:2: wake.transport: expected a string, got boolean"),
        (
            "[wake]\nloopback_target = 47800\n",
            "board.toml:2: wake.loopback_target: expected a string like \"127.0.0.1:47800\", got integer"
        ),
        (
            "[wake]\ncoalesce_milliseconds = \"750\"\n",
            "board.toml:2: wake.coalesce_milliseconds: expected an integer, got string"
        ),
        ("[wake]\nadapter = 0\n", "board.toml:2: wake.adapter: expected a string, got integer"),
        (
            "[wake]\ncharacteristic_flags = \"notify\"\n",
            "board.toml:2: wake.characteristic_flags: expected an array of strings, got string"
        ),
        (
            "[agent]\nsocket = [\"/run/a.sock\"]\n",
            "board.toml:2: agent.socket: expected a string, got array of strings"
        ),
        (
            "[gadget]\nvendor_id = 0x1d6b\n",
            "board.toml:2: gadget.vendor_id: expected a string like \"0x1d6b\", got integer"
        ),
        (
            "[gadget]\nproduct_id = 260\n",
            "board.toml:2: gadget.product_id: expected a string like \"0x1d6b\", got integer"
        ),
        ("[gadget]\nudc = false\n", "board.toml:2: gadget.udc: expected a string, got boolean"),
        ("[state]\ndirectory = []\n", "board.toml:2: state.directory: expected a string, got empty array"),
        ("[log]\nlevel = 6\n", "board.toml:2: log.level: expected a string, got integer"),
    ])
    func wrongTypesNameFileLineKeyAndBothTypes(text: String, description: String) throws {
        let error = try #require(parseBoard(text).failure)
        #expect(error.kind == .wrongType)
        #expect(error.description == description)
    }

    @Test(arguments: [
        (
            "[live_activity]\nretention_seconds = 0\n", "live_activity.retention_seconds",
            "0 is out of range; expected 1...604800 seconds (7 days)"
        ),
        (
            "[live_activity]\nretention_seconds = -5\n", "live_activity.retention_seconds",
            "-5 is out of range; expected 1...604800 seconds (7 days)"
        ),
        (
            "[live_activity]\nretention_seconds = 604_801\n", "live_activity.retention_seconds",
            "604801 is out of range; expected 1...604800 seconds (7 days)"
        ),
        ("[http]\nlisten = []\n", "http.listen", "at least one listen address is required"),
        (
            "[http]\nlisten = [\"192.168.42.1\"]\n", "http.listen",
            "'192.168.42.1': expected host:port, e.g. 192.168.42.1:8080"
        ),
        (
            "[http]\nlisten = [\"localhost:8080\"]\n", "http.listen",
            "'localhost:8080': 'localhost' is not an IP address (host names are not resolved)"
        ),
        (
            "[http]\nlisten = [\"::1:8080\"]\n", "http.listen",
            "'::1:8080': IPv6 addresses must be in brackets, e.g. [::1]:8080"
        ),
        ("[http]\nlisten = [\"1.2.3.4:80\", \"1.2.3.4:80\"]\n", "http.listen", "\"1.2.3.4:80\" is listed twice"),
        ("[http]\nlisten = [\"[::1]:80\", \"[0::1]:80\"]\n", "http.listen", "\"[0::1]:80\" is listed twice"),
        (
            "[http]\nallowed_subnets = [\"192.168.42.1/24\"]\n", "http.allowed_subnets",
            "'192.168.42.1/24': host bits are set; did you mean 192.168.42.0/24?"
        ),
        (
            "[http]\nallowed_subnets = [\"192.168.42.0\"]\n", "http.allowed_subnets",
            "'192.168.42.0': expected address/prefix, e.g. 192.168.42.0/24"
        ),
        ("[wake]\ntransport = \"ble\"\n", "wake.transport", "\"ble\" is not one of \"bluez\", \"loopback\""),
        ("[wake]\ntransport = \"BlueZ\"\n", "wake.transport", "\"BlueZ\" is not one of \"bluez\", \"loopback\""),
        ("[wake]\nloopback_target = \"127.0.0.1:0\"\n", "wake.loopback_target", "port 0 is not a valid destination"),
        (
            "[wake]\nloopback_target = \"127.0.0.1\"\n", "wake.loopback_target",
            "'127.0.0.1': expected host:port, e.g. 192.168.42.1:8080"
        ),
        (
            "[wake]\ncoalesce_milliseconds = 49\n", "wake.coalesce_milliseconds",
            "49 is out of range; expected 50...60000 milliseconds"
        ),
        (
            "[wake]\ncoalesce_milliseconds = 60001\n", "wake.coalesce_milliseconds",
            "60001 is out of range; expected 50...60000 milliseconds"
        ),
        ("[wake]\nadapter = \"hci\"\n", "wake.adapter", "\"hci\" is not an adapter name like \"hci0\""),
        ("[wake]\nadapter = \"hci01\"\n", "wake.adapter", "\"hci01\" is not an adapter name like \"hci0\""),
        ("[wake]\nadapter = \"HCI0\"\n", "wake.adapter", "\"HCI0\" is not an adapter name like \"hci0\""),
        ("[wake]\nadapter = \"hci0 \"\n", "wake.adapter", "\"hci0 \" is not an adapter name like \"hci0\""),
        (
            "[wake]\nadapter = \"00:11:22:33:44:55\"\n", "wake.adapter",
            "\"00:11:22:33:44:55\" is not an adapter name like \"hci0\""
        ),
        (
            "[wake]\ncharacteristic_flags = [\"read\"]\n", "wake.characteristic_flags",
            "must include \"notify\": Wakes are delivered as notifications"
        ),
        (
            "[wake]\ncharacteristic_flags = []\n", "wake.characteristic_flags",
            "must include \"notify\": Wakes are delivered as notifications"
        ),
        (
            "[wake]\ncharacteristic_flags = [\"notify\", \"notify\"]\n", "wake.characteristic_flags",
            "\"notify\" is listed twice"
        ),
        ("[agent]\nsocket = \"agent.sock\"\n", "agent.socket", "\"agent.sock\" is not an absolute path"),
        ("[agent]\nsocket = \"\"\n", "agent.socket", "\"\" is not an absolute path"),
        (
            "[agent]\nsocket = \"/run/\\u0000.sock\"\n", "agent.socket",
            "the path contains the control character U+0000"
        ),
        (
            "[agent]\nsocket = \"/\(String(repeating: "s", count: 107))\"\n", "agent.socket",
            "the path is 108 bytes long; at most 107 fit"
        ),
        (
            "[gadget]\nvendor_id = \"1d6b\"\n", "gadget.vendor_id",
            "\"1d6b\" is not a USB id: expected \"0x\" and 1-4 hex digits, e.g. \"0x1d6b\""
        ),
        (
            "[gadget]\nvendor_id = \"0x\"\n", "gadget.vendor_id",
            "\"0x\" is not a USB id: expected \"0x\" and 1-4 hex digits, e.g. \"0x1d6b\""
        ),
        (
            "[gadget]\nvendor_id = \"0x12345\"\n", "gadget.vendor_id",
            "\"0x12345\" is not a USB id: expected \"0x\" and 1-4 hex digits, e.g. \"0x1d6b\""
        ),
        (
            "[gadget]\nproduct_id = \"0X0104\"\n", "gadget.product_id",
            "\"0X0104\" is not a USB id: expected \"0x\" and 1-4 hex digits, e.g. \"0x1d6b\""
        ),
        (
            "[gadget]\nproduct_id = \"0x01g4\"\n", "gadget.product_id",
            "\"0x01g4\" is not a USB id: expected \"0x\" and 1-4 hex digits, e.g. \"0x1d6b\""
        ),
        (
            "[gadget]\nproduct_id = \"0x+104\"\n", "gadget.product_id",
            "\"0x+104\" is not a USB id: expected \"0x\" and 1-4 hex digits, e.g. \"0x1d6b\""
        ),
        (
            "[gadget]\nudc = \"../udc\"\n", "gadget.udc",
            "\"../udc\" is not a UDC name (letters, digits, '.', '_', ':', '-'; not starting with '.')"
        ),
        (
            "[gadget]\nudc = \"a/b\"\n", "gadget.udc",
            "\"a/b\" is not a UDC name (letters, digits, '.', '_', ':', '-'; not starting with '.')"
        ),
        ("[state]\ndirectory = \"var/lib/aiden\"\n", "state.directory", "\"var/lib/aiden\" is not an absolute path"),
        (
            "[log]\nlevel = \"verbose\"\n", "log.level",
            "\"verbose\" is not one of \"error\", \"warning\", \"notice\", \"info\", \"debug\""
        ),
        (
            "[log]\nlevel = \"INFO\"\n", "log.level",
            "\"INFO\" is not one of \"error\", \"warning\", \"notice\", \"info\", \"debug\""
        ),
    ])
    func invalidValuesNameTheKeyAndTheReason(text: String, key: String, message: String) throws {
        let error = try #require(parseBoard(text).failure)
        #expect(error.kind == .invalidValue)
        #expect(error.file == "board.toml")
        #expect(error.line == 2)
        #expect(error.key == key)
        #expect(error.message == message)
    }

    @Test func badElementsOfMultiLineArraysPointAtTheirLine() throws {
        let text = "[http]\nlisten = [\n  \"127.0.0.1:8080\",\n  \"192.168.42.1:80800\",\n]\n"
        let error = try #require(parseBoard(text, file: "/etc/aiden/board.toml").failure)
        #expect(
            error.description
                == "/etc/aiden/board.toml:4: http.listen: '192.168.42.1:80800': port must be a number 0...65535")
    }

    @Test func unknownFlagsPointAtTheirLine() throws {
        let text = "[wake]\ncharacteristic_flags = [\n  \"notify\",\n  \"encrypted-read\",\n]\n"
        let error = try #require(parseBoard(text).failure)
        #expect(error.line == 4)
        #expect(error.message.hasPrefix("unknown flag \"encrypted-read\" (known: broadcast, read, "))
    }

    @Test(arguments: BoardConfiguration.knownCharacteristicFlags)
    func everyBlueZFlagIsAccepted(flag: String) throws {
        let flags = flag == "notify" ? ["notify"] : [flag, "notify"]
        let text = "[wake]\ncharacteristic_flags = [\(flags.map { "\"\($0)\"" }.joined(separator: ", "))]\n"
        #expect(try parseBoard(text).get().wake.characteristicFlags == flags)
    }

    @Test(arguments: [
        (
            "[live_activity]\nenable = true\n",
            "board.toml:2: live_activity.enable: unknown key in [live_activity] (known: enabled, retention_seconds)"
        ),
        (
            "[http]\nlisten_addresses = []\n",
            "board.toml:2: http.listen_addresses: unknown key in [http] (known: listen, allowed_subnets, interface)"
        ),
        (
            "[wake]\ncoalesce_ms = 750\n",
            "board.toml:2: wake.coalesce_ms: unknown key in [wake] (known: transport, loopback_target, "
                + "coalesce_milliseconds, adapter, characteristic_flags)"
        ),
        ("[agent]\npath = \"/run/a.sock\"\n", "board.toml:2: agent.path: unknown key in [agent] (known: socket)"),
        (
            "[gadget]\nvid = \"0x1d6b\"\n",
            "board.toml:2: gadget.vid: unknown key in [gadget] (known: vendor_id, product_id, udc)"
        ),
        ("[state]\ndir = \"/x\"\n", "board.toml:2: state.dir: unknown key in [state] (known: directory)"),
        ("[log]\nlevel = \"info\"\nfile = \"/x\"\n", "board.toml:3: log.file: unknown key in [log] (known: level)"),
        (
            "enabled = true\n",
            "board.toml:1: enabled: unknown key at the top level; keys belong under a table ([live_activity], "
                + "[http], [wake], [agent], [gadget], [state], [log])"
        ),
        (
            "[live_activity]\nenabled = true\n\n[liveactivity]\n",
            "board.toml:4: liveactivity: unknown table [liveactivity] (known: live_activity, http, wake, agent, "
                + "gadget, state, log)"
        ),
        (
            "[usb]\nvendor_id = \"0x1d6b\"\n",
            "board.toml:1: usb: unknown table [usb] (known: live_activity, http, wake, agent, gadget, state, log)"
        ),
    ])
    func unknownKeysAndTablesAreErrors(text: String, description: String) throws {
        let error = try #require(parseBoard(text).failure)
        #expect(error.kind == .unknownKey)
        #expect(error.description == description)
    }

    @Test func theFirstProblemInTheFileIsReported() throws {
        let text = "[wake]\nadapter = \"bad\"\n[http]\nlisten = 1\n[nope]\n"
        #expect(try #require(parseBoard(text).failure).key == "wake.adapter")
    }

    @Test func syntaxErrorsComeBeforeMeaning() throws {
        // An unknown key on line 1 and a syntax error on line 3: the file is not TOML, say so first.
        let error = try #require(parseBoard("[nope]\n[http]\nlisten = [\"a\"\n").failure)
        #expect(error.description == "board.toml:3: http.listen: unterminated array: missing ']'")
        #expect(error.kind == .syntax)
    }

    @Test(arguments: [
        (
            "[live_activity]\nenabled = true\nenabled = false\n",
            "board.toml:3: live_activity.enabled: duplicate key (first set on line 2)"
        ),
        ("[http]\n[wake]\n[http]\n", "board.toml:3: http: duplicate table [http] (first defined on line 1)"),
    ])
    func duplicatesAreErrors(text: String, description: String) throws {
        #expect(try #require(parseBoard(text).failure).description == description)
    }
}
