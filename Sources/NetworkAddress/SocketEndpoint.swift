/// An IP address and a port, as written in configuration: `192.168.42.1:8080`, `[::]:8080`.
package struct SocketEndpoint: Hashable, Sendable, CustomStringConvertible {
    package let address: IPAddress
    /// 0 asks the kernel for a free port (tests use it; the daemon reports the port it got).
    package let port: UInt16

    package init(address: IPAddress, port: UInt16) {
        self.address = address
        self.port = port
    }

    /// Parses "host:port" where host is an IP literal, IPv6 in brackets.
    package init(_ text: some StringProtocol) throws(AddressParseError) {
        let input = String(text)
        let hostPart: Substring
        let portPart: Substring
        if input.hasPrefix("[") {
            guard let close = input.firstIndex(of: "]") else {
                throw AddressParseError(input: input, reason: "missing ']' after the IPv6 address")
            }
            hostPart = input[input.index(after: input.startIndex)..<close]
            let rest = input[input.index(after: close)...]
            guard rest.first == ":" else {
                throw AddressParseError(input: input, reason: "expected ':port' after ']'")
            }
            portPart = rest.dropFirst()
            guard IPAddress(hostPart)?.isIPv6 == true else {
                throw AddressParseError(input: input, reason: "'\(hostPart)' is not an IPv6 address")
            }
        } else {
            guard let colon = input.lastIndex(of: ":") else {
                throw AddressParseError(input: input, reason: "expected host:port, e.g. 192.168.42.1:8080")
            }
            hostPart = input[..<colon]
            portPart = input[input.index(after: colon)...]
            guard !hostPart.contains(":") else {
                throw AddressParseError(input: input, reason: "IPv6 addresses must be in brackets, e.g. [::1]:8080")
            }
        }
        guard let address = IPAddress(hostPart) else {
            throw AddressParseError(
                input: input, reason: "'\(hostPart)' is not an IP address (host names are not resolved)")
        }
        guard !portPart.isEmpty, portPart.allSatisfy({ $0.isNumber }), portPart.count <= 5,
            let port = UInt16(portPart)
        else {
            throw AddressParseError(input: input, reason: "port must be a number 0...65535")
        }
        self.init(address: address, port: port)
    }

    package var description: String { "\(address.uriHost):\(port)" }
}

/// Why an address, subnet or endpoint string was rejected; `description` names the input.
package struct AddressParseError: Error, Equatable, Sendable, CustomStringConvertible {
    package let input: String
    package let reason: String

    package var description: String { "'\(input)': \(reason)" }
}
