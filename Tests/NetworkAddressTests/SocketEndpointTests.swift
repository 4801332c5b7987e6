import Testing

@testable import NetworkAddress

@Suite struct SocketEndpointTests {
    @Test(arguments: [
        ("192.168.42.1:8080", "192.168.42.1", 8080), ("127.0.0.1:0", "127.0.0.1", 0), ("[::]:8080", "::", 8080),
        ("[::1]:65535", "::1", 65535), ("0.0.0.0:80", "0.0.0.0", 80),
    ])
    func parses(input: String, host: String, port: Int) throws {
        let endpoint = try SocketEndpoint(input)
        #expect(endpoint.address == IPAddress(host))
        #expect(Int(endpoint.port) == port)
        #expect(try SocketEndpoint(endpoint.description) == endpoint)
    }

    @Test(arguments: [
        ("192.168.42.1", "expected host:port"), ("::1:8080", "must be in brackets"), ("[::1]8080", "expected ':port'"),
        ("[::1:8080", "missing ']'"), ("[1.2.3.4]:80", "not an IPv6 address"), ("localhost:8080", "not resolved"),
        ("1.2.3.4:65536", "0...65535"), ("1.2.3.4:", "port"), ("1.2.3.4:http", "port"), ("1.2.3.4:+80", "port"),
    ])
    func rejectsWithAReason(input: String, reasonFragment: String) {
        #expect {
            try SocketEndpoint(input)
        } throws: { error in
            (error as? AddressParseError)?.reason.contains(reasonFragment) == true
        }
    }

    @Test func describesIPv6InBrackets() throws {
        #expect(try SocketEndpoint("[0:0::1]:80").description == "[::1]:80")
    }
}
