import NetworkAddress
import Testing

@testable import Configuration

@Suite struct BoardURLTests {
    @Test(arguments: [
        ("http://192.168.42.1:8080", "http://192.168.42.1:8080", "192.168.42.1:8080"),
        ("http://192.168.42.1:8080/", "http://192.168.42.1:8080", "192.168.42.1:8080"),
        ("http://192.168.42.1", "http://192.168.42.1:80", "192.168.42.1:80"),
        ("http://127.0.0.1:65535", "http://127.0.0.1:65535", "127.0.0.1:65535"),
        ("http://localhost:8080", "http://localhost:8080", "localhost:8080"),
        ("http://LocalHost", "http://localhost:80", "localhost:80"),
        ("http://[::1]:8080", "http://[::1]:8080", "[::1]:8080"),
        ("http://[0:0::1]", "http://[::1]:80", "[::1]:80"),
        ("http://[fe80::1]/", "http://[fe80::1]:80", "[fe80::1]:80"),
    ])
    func parsesAndCanonicalises(text: String, canonical: String, authority: String) throws {
        let url = try BoardURL(text)
        #expect(url.description == canonical)
        #expect(url.authority == authority)
        #expect(try BoardURL(url.description) == url)
    }

    @Test func buildsRequestURLs() throws {
        let url = try BoardURL("http://192.168.42.1:8080/")
        #expect(
            url.url(path: "/api/live-activity/current?phone_id=p1")
                == "http://192.168.42.1:8080/api/live-activity/current?phone_id=p1")
        #expect(url.url(path: "status") == "http://192.168.42.1:8080/status")
    }

    @Test(arguments: [
        ("192.168.42.1:8080", "must start with \"http://\""),
        ("HTTP://192.168.42.1", "must start with \"http://\""),
        ("ftp://192.168.42.1", "must start with \"http://\""),
        ("https://192.168.42.1", "https is not supported: the board serves plain HTTP on the USB link"),
        ("http://", "'' is not an IP address or \"localhost\" (names are not resolved)"),
        ("http://:8080", "'' is not an IP address or \"localhost\" (names are not resolved)"),
        ("http://board:8080", "'board' is not an IP address or \"localhost\" (names are not resolved)"),
        ("http://192.168.042.1", "'192.168.042.1' is not an IP address or \"localhost\" (names are not resolved)"),
        ("http://::1", "IPv6 addresses must be in brackets, e.g. http://[::1]:8080"),
        ("http://::1:8080", "IPv6 addresses must be in brackets, e.g. http://[::1]:8080"),
        ("http://[::1", "missing ']' after the IPv6 address"),
        ("http://[::1]8080", "expected ':port' after ']'"),
        ("http://[127.0.0.1]:80", "'127.0.0.1' is not an IPv6 address"),
        ("http://[fe80::1%eth0]:80", "'fe80::1%eth0' is not an IPv6 address"),
        ("http://1.2.3.4:", "port must be a number 1...65535"),
        ("http://1.2.3.4:0", "port must be a number 1...65535"),
        ("http://1.2.3.4:65536", "port must be a number 1...65535"),
        ("http://1.2.3.4:+80", "port must be a number 1...65535"),
        ("http://1.2.3.4:080080", "port must be a number 1...65535"),
        ("http://1.2.3.4:8080/api", "a path (\"/api\") is not allowed; give only http://host:port"),
        ("http://1.2.3.4//", "a path (\"//\") is not allowed; give only http://host:port"),
        ("http://1.2.3.4/?x=1", "a query or fragment is not allowed"),
        ("http://1.2.3.4#top", "a query or fragment is not allowed"),
        ("http://user:pw@1.2.3.4", "user names and passwords are not allowed"),
    ])
    func rejectsWithAReason(text: String, reason: String) {
        #expect(throws: BoardURL.ParseError(reason: reason)) {
            try BoardURL(text)
        }
    }
}
