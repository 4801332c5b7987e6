import WireFormat

extension BoardConfiguration {
    /// The file each key's value came from, for `aiden-board config show`: `"wake.adapter"` → the last of `layers`
    /// that writes it (keys no file writes are absent: their defaults apply). The layers must parse (`parse(layers:)`
    /// first).
    package static func sources(layers: [(file: String, text: String)]) -> [String: String] {
        var sources: [String: String] = [:]
        for layer in layers {
            guard let document = try? TOMLDocument(parsing: layer.text, file: layer.file) else { continue }
            for table in document.tables {
                for entry in table.entries { sources["\(table.name).\(entry.key)"] = layer.file }
            }
        }
        return sources
    }

    /// The configuration as a TOML file: every table and key, defaults filled in, each key with a comment naming
    /// the file its value came from (`# default` for the built-in ones). Parsed back it is this configuration.
    package func toml(sources: [String: String] = [:]) -> String {
        var lines: [String] = []
        func table(_ name: String, _ entries: [(String, String)]) {
            if !lines.isEmpty { lines.append("") }
            lines.append("[\(name)]")
            for (key, value) in entries {
                lines.append("\(key) = \(value)  # \(Self.comment(sources["\(name).\(key)"] ?? "default"))")
            }
        }
        table(
            "live_activity",
            [("enabled", "\(liveActivity.enabled)"), ("retention_seconds", "\(liveActivity.retentionSeconds)")])
        table(
            "http",
            [
                ("listen", Self.array(http.listen.map(\.description))),
                ("allowed_subnets", Self.array(http.allowedSubnets.map(\.description))),
                ("interface", Self.string(http.interface ?? "")),
            ])
        table(
            "wake",
            [
                ("transport", Self.string(wake.transport.rawValue)),
                ("loopback_target", Self.string(wake.loopbackTarget.description)),
                ("coalesce_milliseconds", "\(wake.coalesceMilliseconds)"),
                ("adapter", Self.string(wake.adapter)),
                ("characteristic_flags", Self.array(wake.characteristicFlags)),
            ])
        table("agent", [("socket", Self.string(agent.socket))])
        table(
            "gadget",
            [
                ("vendor_id", Self.string(Self.usbID(gadget.vendorID))),
                ("product_id", Self.string(Self.usbID(gadget.productID))),
                ("udc", Self.string(gadget.udc ?? "")),
            ])
        table("state", [("directory", Self.string(state.directory))])
        table("log", [("level", Self.string(log.level.rawValue))])
        return lines.joined(separator: "\n") + "\n"
    }

    /// A file name as a comment's text: a control character (a line feed in a drop-in's name) would end the
    /// comment and start a line of TOML, so each is written as `?`.
    static func comment(_ text: String) -> String {
        String(String.UnicodeScalarView(text.unicodeScalars.map { $0.value < 0x20 || $0.value == 0x7F ? "?" : $0 }))
    }

    /// A TOML basic string: JSON's escapes (`\"`, `\\`, `\n`, `\u001b`) are TOML's too, and TOML escapes DEL as well,
    /// which JSON leaves as it is (a raw one is not TOML, and the file would not parse back).
    static func string(_ text: String) -> String { JSONString.quote(text).replacing("\u{7F}", with: "\\u007f") }

    static func array(_ items: [String]) -> String { "[" + items.map(string).joined(separator: ", ") + "]" }

    /// `0x1d6b`, as the file writes a USB id.
    static func usbID(_ value: UInt16) -> String {
        let digits = String(value, radix: 16)
        return "0x" + String(repeating: "0", count: max(0, 4 - digits.count)) + digits
    }

    /// Reads `path` and its drop-ins (`ConfigurationFile.layers`): the configuration and where each key came from.
    package static func loadWithSources(
        path: String, reader: some ConfigurationReader
    ) throws(ConfigurationError) -> (
        configuration: BoardConfiguration, sources: [String: String]
    ) {
        let layers = try ConfigurationFile.layers(path: path, reader: reader)
        return (try parse(layers: layers), sources(layers: layers))
    }
}
