import NetworkAddress

/// Validators shared by the board and phone configurations. Each reads the entry's value,
/// checks it, and throws an error naming the file, line and key.
extension ConfigurationField {
    /// A string that must be one of an enum's raw values.
    func oneOf<Choice: RawRepresentable & CaseIterable>(_: Choice.Type) throws(ConfigurationError) -> Choice
    where Choice.RawValue == String {
        let text = try string()
        guard let choice = Choice(rawValue: text) else {
            let names = Choice.allCases.map { "\"\($0.rawValue)\"" }.joined(separator: ", ")
            throw invalid("\"\(text)\" is not one of \(names)")
        }
        return choice
    }

    /// `host:port` with an IP literal host. A destination (`forSending`) needs a real port.
    func endpoint(forSending: Bool = false) throws(ConfigurationError) -> SocketEndpoint {
        let endpoint = try Self.endpoint(try string(example: "127.0.0.1:47800"), line: entry.line, field: self)
        if forSending, endpoint.port == 0 {
            throw invalid("port 0 is not a valid destination")
        }
        return endpoint
    }

    /// A network interface name as Linux takes it (1–15 bytes, not `.` or `..`, no `/`, `:` or white space);
    /// empty means "any interface" (nil).
    func interfaceName() throws(ConfigurationError) -> String? {
        let text = try string(example: "aiden0")
        guard !text.isEmpty else { return nil }
        let forbidden = text.unicodeScalars.contains {
            $0 == "/" || $0 == ":" || $0.properties.isWhitespace || $0.value < 0x21 || $0.value > 0x7E
        }
        guard text.utf8.count <= 15, text != ".", text != "..", !forbidden else {
            throw invalid(
                "\"\(text)\" is not an interface name (at most 15 printable ASCII characters, no '/', ':' or space)")
        }
        return text
    }

    /// A non-empty list of listen endpoints without repeats.
    func listenEndpoints() throws(ConfigurationError) -> [SocketEndpoint] {
        let texts = try strings()
        guard !texts.isEmpty else { throw invalid("at least one listen address is required") }
        var endpoints: [SocketEndpoint] = []
        for (text, line) in texts {
            let endpoint = try Self.endpoint(text, line: line, field: self)
            if endpoints.contains(endpoint) {
                throw invalid("\"\(text)\" is listed twice", line: line)
            }
            endpoints.append(endpoint)
        }
        return endpoints
    }

    /// CIDR blocks; an empty list is allowed (then only loopback peers are admitted).
    func subnets() throws(ConfigurationError) -> [Subnet] {
        var subnets: [Subnet] = []
        for (text, line) in try strings() {
            do throws(AddressParseError) {
                subnets.append(try Subnet(text))
            } catch {
                throw invalid(error.description, line: line)
            }
        }
        return subnets
    }

    /// `hciN`, the kernel's name for a Bluetooth controller.
    func adapter() throws(ConfigurationError) -> String {
        let text = try string()
        let digits = text.dropFirst(3)
        guard text.hasPrefix("hci"), (1...5).contains(digits.count), digits.unicodeScalars.allSatisfy(\.isASCIIDigit),
            digits.count == 1 || digits.first != "0"
        else {
            throw invalid("\"\(text)\" is not an adapter name like \"hci0\"")
        }
        return text
    }

    /// A USB vendor or product id written as `"0x1d6b"` (1–4 hex digits).
    func usbIdentifier() throws(ConfigurationError) -> UInt16 {
        let text = try string(example: "0x1d6b")
        let digits = text.dropFirst(2)
        guard text.hasPrefix("0x"), (1...4).contains(digits.count),
            digits.unicodeScalars.allSatisfy({ $0.hexDigitValue != nil }), let value = UInt16(digits, radix: 16)
        else {
            throw invalid("\"\(text)\" is not a USB id: expected \"0x\" and 1-4 hex digits, e.g. \"0x1d6b\"")
        }
        return value
    }

    /// An absolute path without control characters; `maximumBytes` bounds its UTF-8 length.
    func absolutePath(maximumBytes: Int? = nil) throws(ConfigurationError) -> String {
        let text = try string()
        guard text.hasPrefix("/") else { throw invalid("\"\(text)\" is not an absolute path") }
        if let bad = text.unicodeScalars.first(where: \.isForbiddenControl) {
            throw invalid("the path contains the control character \(bad.codePoint)")
        }
        if let maximumBytes, text.utf8.count > maximumBytes {
            throw invalid("the path is \(text.utf8.count) bytes long; at most \(maximumBytes) fit")
        }
        return text
    }

    /// A string from a fixed vocabulary, each at most once.
    func distinctWords(allowed: [String]) throws(ConfigurationError) -> [String] {
        var words: [String] = []
        for (text, line) in try strings() {
            guard allowed.contains(text) else {
                throw invalid("unknown flag \"\(text)\" (known: \(allowed.joined(separator: ", ")))", line: line)
            }
            guard !words.contains(text) else { throw invalid("\"\(text)\" is listed twice", line: line) }
            words.append(text)
        }
        return words
    }

    private static func endpoint(
        _ text: String, line: Int, field: ConfigurationField
    )
        throws(ConfigurationError) -> SocketEndpoint
    {
        do throws(AddressParseError) {
            return try SocketEndpoint(text)
        } catch {
            throw field.invalid(error.description, line: line)
        }
    }
}
