import NetworkAddress
import WireFormat

extension PhoneConfiguration: LayeredConfiguration {
    static let tableNames = ["board", "wake", "usb", "phone", "state", "log"]

    /// Parses a phone configuration file's text. `file` names it in errors (`phone.toml:3: …`).
    package static func parse(_ text: String, file: String) throws(ConfigurationError) -> PhoneConfiguration {
        try reading(text, file: file, onto: .defaults)
    }

    /// The main file, then its drop-ins in their order (`ConfigurationFile.layers`): each key a later file writes
    /// replaces the one before it, and a table several files write is their keys together.
    package static func parse(layers: [(file: String, text: String)]) throws(ConfigurationError) -> PhoneConfiguration {
        try reading(layers: layers)
    }

    mutating func apply(_ field: ConfigurationField, table: String) throws(ConfigurationError) {
        switch table {
        case "board": try board.apply(field)
        case "wake": try wake.apply(field)
        case "usb": try usb.apply(field)
        case "phone": try phone.apply(field)
        case "state": try state.apply(field)
        case "log": try log.apply(field)
        default: throw field.topLevelKey(tables: Self.tableNames)
        }
    }

    /// Applies `LIVE_ACTIVITY_PHONE_ID` when it is set and not empty (an empty variable is
    /// treated as unset, so `VAR= aiden-phone` does not erase a configured id).
    package func applyingEnvironment(_ environment: [String: String]) throws(ConfigurationError) -> PhoneConfiguration {
        guard let value = environment[Self.phoneIDVariable], !value.isEmpty else { return self }
        if let problem = Self.phoneIDProblem(value) {
            throw ConfigurationError(
                kind: .invalidValue, file: "environment", line: nil, key: Self.phoneIDVariable,
                message: problem)
        }
        var copy = self
        copy.phone.id = value
        return copy
    }

    /// Phone ids follow the request-id rule (`IdentifierRule`) so they travel unescaped in query strings and logs.
    static func phoneIDProblem(_ text: String) -> String? {
        guard text.utf8.count <= IdentifierRule.maxLength else {
            return "a phone id is at most \(IdentifierRule.maxLength) characters, got \(text.utf8.count)"
        }
        guard text.unicodeScalars.allSatisfy(IdentifierRule.allows) else {
            return "\"\(text)\" is not a phone id (letters, digits, '.', '_', ':', '-')"
        }
        return nil
    }
}

extension PhoneConfiguration.Board {
    mutating func apply(_ field: ConfigurationField) throws(ConfigurationError) {
        switch field.name {
        case "url":
            let text = try field.string()
            do throws(BoardURL.ParseError) {
                url = try BoardURL(text)
            } catch {
                throw field.invalid("\"\(text)\": \(error.reason)")
            }
        case "interface": interface = try field.interfaceName()
        default: throw field.unknownKey(known: ["url", "interface"])
        }
    }
}

extension PhoneConfiguration.Wake {
    mutating func apply(_ field: ConfigurationField) throws(ConfigurationError) {
        switch field.name {
        case "transport": transport = try field.oneOf(WakeTransport.self)
        case "loopback_listen": loopbackListen = try field.endpoint()
        case "adapter": adapter = try field.adapter()
        case "address": address = try field.bluetoothAddress()
        default: throw field.unknownKey(known: ["transport", "loopback_listen", "adapter", "address"])
        }
    }
}

extension PhoneConfiguration.USB {
    mutating func apply(_ field: ConfigurationField) throws(ConfigurationError) {
        switch field.name {
        case "vendor_id": vendorID = try field.usbIdentifier()
        case "product_id": productID = try field.usbIdentifier()
        default: throw field.unknownKey(known: ["vendor_id", "product_id"])
        }
    }
}

extension PhoneConfiguration.Phone {
    mutating func apply(_ field: ConfigurationField) throws(ConfigurationError) {
        switch field.name {
        case "id":
            let text = try field.string()
            if let problem = PhoneConfiguration.phoneIDProblem(text) { throw field.invalid(problem) }
            id = text.isEmpty ? nil : text
        default: throw field.unknownKey(known: ["id"])
        }
    }
}

extension PhoneConfiguration.State {
    mutating func apply(_ field: ConfigurationField) throws(ConfigurationError) {
        switch field.name {
        case "directory":
            // Empty means "the standard place" (PhonePaths), as an empty `phone.id` means "generated".
            directory = try field.string().isEmpty ? nil : field.absolutePath()
        default: throw field.unknownKey(known: ["directory"])
        }
    }
}

extension ConfigurationField {
    /// `AA:BB:CC:DD:EE:FF` (`BluetoothAddress`: either case, stored upper case); empty means "discover".
    func bluetoothAddress() throws(ConfigurationError) -> String? {
        let text = try string()
        guard !text.isEmpty else { return nil }
        guard let address = BluetoothAddress(text) else {
            throw invalid("\"\(text)\" is not a Bluetooth address like \"AA:BB:CC:DD:EE:FF\"")
        }
        return address.description
    }
}
