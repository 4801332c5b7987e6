import Configuration
import Testing

/// config/board.toml and config/phone.toml, installed as /etc/aiden/*.toml: they parse, the board's
/// carries the seed, and every commented key shows the real default.
@Suite struct DefaultConfigurationTests {
    /// The file with each commented `# [table]` and `# key = value` line turned on.
    static func uncommented(_ text: String) -> String {
        text.split(separator: "\n", omittingEmptySubsequences: false).map { line -> String in
            guard line.hasPrefix("# ") else { return String(line) }
            let body = line.dropFirst(2)
            let isHeader = body.hasPrefix("[") && !body.hasPrefix("[]")
            let isKey = body.first?.isLowercase == true && body.contains(" = ")
            return isHeader || isKey ? String(body) : String(line)
        }.joined(separator: "\n")
    }

    @Test func boardFileCarriesTheSeedAndChangesNothing() throws {
        let text = try Repository.text("config/board.toml")
        #expect(text.contains("\n[live_activity]\nenabled = true\n"))
        #expect(try BoardConfiguration.parse(text, file: "board.toml") == .defaults)
    }

    @Test func boardFileCommentsShowTheDefaults() throws {
        let text = Self.uncommented(try Repository.text("config/board.toml"))
        #expect(text.contains("\nvendor_id = \"0x1d6b\""))
        #expect(try BoardConfiguration.parse(text, file: "board.toml") == .defaults)
    }

    @Test func phoneFileChangesNothingAndItsCommentsShowTheDefaults() throws {
        let text = try Repository.text("config/phone.toml")
        #expect(try PhoneConfiguration.parse(text, file: "phone.toml") == .defaults)
        let uncommented = Self.uncommented(text)
        #expect(uncommented.contains("[board]\nurl = \"http://192.168.42.1:8080\""))
        #expect(try PhoneConfiguration.parse(uncommented, file: "phone.toml") == .defaults)
    }

    @Test func uncommentingWouldCatchAWrongDefault() throws {
        let wrong = Self.uncommented("# [wake]\n# coalesce_milliseconds = 500\n")
        #expect(try BoardConfiguration.parse(wrong, file: "board.toml") != .defaults)
    }
}
