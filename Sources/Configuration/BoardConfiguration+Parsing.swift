import WireFormat

extension BoardConfiguration: LayeredConfiguration {
    /// The tables a board file may contain, in the order the documentation lists them.
    static let tableNames = ["live_activity", "http", "wake", "agent", "gadget", "state", "log"]

    /// Parses a board configuration file's text. `file` names it in errors (`board.toml:12: …`).
    ///
    /// Keys not written keep their defaults. The first problem in file order is reported.
    package static func parse(_ text: String, file: String) throws(ConfigurationError) -> BoardConfiguration {
        try reading(text, file: file, onto: .defaults)
    }

    /// The main file, then its drop-ins in their order (`ConfigurationFile.layers`): each key a later file writes
    /// replaces the one before it, and a table several files write is their keys together.
    package static func parse(layers: [(file: String, text: String)]) throws(ConfigurationError) -> BoardConfiguration {
        try reading(layers: layers)
    }

    mutating func apply(_ field: ConfigurationField, table: String) throws(ConfigurationError) {
        switch table {
        case "live_activity": try liveActivity.apply(field)
        case "http": try http.apply(field)
        case "wake": try wake.apply(field)
        case "agent": try agent.apply(field)
        case "gadget": try gadget.apply(field)
        case "state": try state.apply(field)
        case "log": try log.apply(field)
        default: throw field.topLevelKey(tables: Self.tableNames)
        }
    }
}

extension BoardConfiguration.LiveActivity {
    mutating func apply(_ field: ConfigurationField) throws(ConfigurationError) {
        switch field.name {
        case "enabled": enabled = try field.boolean()
        case "retention_seconds": retentionSeconds = try field.integer(in: 1...604_800, unit: "seconds (7 days)")
        default: throw field.unknownKey(known: ["enabled", "retention_seconds"])
        }
    }
}

extension BoardConfiguration.HTTP {
    mutating func apply(_ field: ConfigurationField) throws(ConfigurationError) {
        switch field.name {
        case "listen": listen = try field.listenEndpoints()
        case "allowed_subnets": allowedSubnets = try field.subnets()
        case "interface": interface = try field.interfaceName()
        default: throw field.unknownKey(known: ["listen", "allowed_subnets", "interface"])
        }
    }
}

extension BoardConfiguration.Wake {
    mutating func apply(_ field: ConfigurationField) throws(ConfigurationError) {
        switch field.name {
        case "transport": transport = try field.oneOf(WakeTransport.self)
        case "loopback_target": loopbackTarget = try field.endpoint(forSending: true)
        case "coalesce_milliseconds": coalesceMilliseconds = try field.integer(in: 50...60_000, unit: "milliseconds")
        case "adapter": adapter = try field.adapter()
        case "characteristic_flags":
            let flags = try field.distinctWords(allowed: BoardConfiguration.knownCharacteristicFlags)
            guard flags.contains("notify") else {
                throw field.invalid("must include \"notify\": Wakes are delivered as notifications")
            }
            characteristicFlags = flags
        default:
            throw field.unknownKey(known: [
                "transport", "loopback_target", "coalesce_milliseconds", "adapter", "characteristic_flags",
            ])
        }
    }
}

extension BoardConfiguration.Agent {
    mutating func apply(_ field: ConfigurationField) throws(ConfigurationError) {
        switch field.name {
        // sockaddr_un.sun_path holds 108 bytes including the terminating NUL.
        case "socket": socket = try field.absolutePath(maximumBytes: 107)
        default: throw field.unknownKey(known: ["socket"])
        }
    }
}

extension BoardConfiguration.Gadget {
    mutating func apply(_ field: ConfigurationField) throws(ConfigurationError) {
        switch field.name {
        case "vendor_id": vendorID = try field.usbIdentifier()
        case "product_id": productID = try field.usbIdentifier()
        case "udc": udc = try field.udcName()
        default: throw field.unknownKey(known: ["vendor_id", "product_id", "udc"])
        }
    }
}

extension BoardConfiguration.State {
    mutating func apply(_ field: ConfigurationField) throws(ConfigurationError) {
        switch field.name {
        case "directory": directory = try field.absolutePath()
        default: throw field.unknownKey(known: ["directory"])
        }
    }
}

extension ConfigurationField {
    /// A UDC name as listed in /sys/class/udc (`dummy_udc.0`, `fe980000.usb`); empty means "the first".
    func udcName() throws(ConfigurationError) -> String? {
        let text = try string()
        guard !text.isEmpty else { return nil }
        guard text.count <= 128, text.first != ".", text.unicodeScalars.allSatisfy(IdentifierRule.allows) else {
            throw invalid("\"\(text)\" is not a UDC name (letters, digits, '.', '_', ':', '-'; not starting with '.')")
        }
        return text
    }

    /// Keys written before the first `[table]` header belong to no table.
    func topLevelKey(tables: [String]) -> ConfigurationError {
        error(
            .unknownKey,
            "unknown key at the top level; keys belong under a table "
                + "(\(tables.map { "[\($0)]" }.joined(separator: ", ")))")
    }
}
