import Testing

@testable import Configuration

/// `aiden-board config show`: the effective configuration as TOML that parses back to the same configuration,
/// every key written, each saying which file it came from.
@Suite struct ConfigShowTests {
    static let layers: [(file: String, text: String)] = [
        (
            "/etc/aiden/board.toml",
            """
            [http]
            listen = ["127.0.0.1:8080", "[::1]:8081"]
            allowed_subnets = ["192.168.42.0/24", "fd00::/64"]
            interface = ""
            [wake]
            adapter = "hci1"
            characteristic_flags = ["read", "notify"]
            [gadget]
            vendor_id = "0x1209"
            udc = "fe980000.usb"
            """
        ),
        ("/etc/aiden/board.toml.d/50-local.toml", "[wake]\ncoalesce_milliseconds = 100\n[log]\nlevel = \"debug\"\n"),
        ("/etc/aiden/board.toml.d/60-state.toml", "[state]\ndirectory = \"/srv/aiden \\\"state\\\"\"\n"),
    ]

    @Test(arguments: [
        [(file: String, text: String)](), [("/etc/aiden/board.toml", "")], layers,
    ])
    func whatIsShownParsesBackToTheSameConfiguration(layers: [(file: String, text: String)]) throws {
        let configuration = try BoardConfiguration.parse(layers: layers)
        let shown = configuration.toml(sources: BoardConfiguration.sources(layers: layers))
        #expect(try BoardConfiguration.parse(shown, file: "shown") == configuration)
    }

    @Test func everyKeyIsWrittenWithTheFileItCameFrom() throws {
        let configuration = try BoardConfiguration.parse(layers: Self.layers)
        let shown = configuration.toml(sources: BoardConfiguration.sources(layers: Self.layers))
        let lines = shown.split(separator: "\n").map(String.init)
        #expect(lines.contains(#"adapter = "hci1"  # /etc/aiden/board.toml"#))
        #expect(lines.contains("coalesce_milliseconds = 100  # /etc/aiden/board.toml.d/50-local.toml"))
        #expect(lines.contains(#"transport = "bluez"  # default"#))
        #expect(lines.contains(#"vendor_id = "0x1209"  # /etc/aiden/board.toml"#))
        #expect(lines.contains(#"product_id = "0x0104"  # default"#))
        #expect(lines.contains(#"listen = ["127.0.0.1:8080", "[::1]:8081"]  # /etc/aiden/board.toml"#))
        #expect(lines.contains(#"directory = "/srv/aiden \"state\""  # /etc/aiden/board.toml.d/60-state.toml"#))
        let keys = lines.filter { $0.contains(" = ") }.count
        #expect(keys == 16, "every key of every table")
        #expect(
            lines.filter { $0.hasPrefix("[") }.map { $0 } == [
                "[live_activity]", "[http]", "[wake]", "[agent]", "[gadget]", "[state]", "[log]",
            ])
    }

    /// A drop-in's name is root's choice, but a line feed in it must still not become a line of TOML.
    /// TOML wants DEL escaped (JSON, whose string escapes the writer shares, does not): written raw, a value holding
    /// one would not parse back. No field takes one today (each refuses control characters), so the writer is
    /// checked on its own: every ASCII character reads back as it was.
    @Test func everyASCIICharacterIsWrittenAsTOMLReadsIt() {
        for scalar in (0..<0x80).compactMap(Unicode.Scalar.init) {
            let text = "a\(scalar)b"
            #expect(parseValue(BoardConfiguration.string(text)).success == .string(text), "U+\(scalar.value)")
        }
        #expect(BoardConfiguration.string("\u{7F}") == #""\u007f""#)
    }

    @Test func aFileNameCannotAddALine() throws {
        let layers = [("/etc/aiden/board.toml.d/x\n[log]\nlevel = \"debug\".toml", "[wake]\nadapter = \"hci1\"\n")]
        let configuration = try BoardConfiguration.parse(layers: layers)
        let shown = configuration.toml(sources: BoardConfiguration.sources(layers: layers))
        #expect(shown.contains(#"adapter = "hci1"  # /etc/aiden/board.toml.d/x?[log]?level = "debug".toml"#))
        #expect(try BoardConfiguration.parse(shown, file: "shown") == configuration)
    }
}
