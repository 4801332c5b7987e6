import HTTPClientCore
import NetworkAddress
import Testing

@testable import HTTPClient

@Suite("Requests are checked and written out before a socket is opened")
struct RequestPlanTests {
    static let notHTTP = " is not an http:// URL without spaces or control characters"

    @Test(arguments: [
        ("GE T", "http://127.0.0.1/", [(String, String)](), "method \"GE T\" is not an HTTP token"),
        ("GET", "file:///etc/passwd", [], "URL \"file:///etc/passwd\"" + notHTTP),
        ("GET", "http://127.0.0.1/a b", [], "URL \"http://127.0.0.1/a b\"" + notHTTP),
        ("GET", "http://127.0.0.1/", [("X-A", "1\r\nX-Injected: 2")], "header X-A contains a control character"),
        ("GET", "http://127.0.0.1/", [("Bad Name", "1")], "header name \"Bad Name\" is not an HTTP token"),
        ("POST", "http://127.0.0.1/", [("Content-Length", "5")], "header Content-Length is the client's own to write"),
        ("GET", "http://127.0.0.1:0/", [], "URL \"http://127.0.0.1:0/\" has no valid port (1–65535)"),
        ("GET", "http://127.0.0.1:99999/", [], "URL \"http://127.0.0.1:99999/\" has no valid port (1–65535)"),
        (
            "GET", "http://u:p@127.0.0.1/", [],
            "URL \"http://u:p@127.0.0.1/\" has a user name; credentials do not go in URLs"
        ),
        ("GET", "http:///x", [], "URL \"http:///x\" has no host"),
    ])
    func invalidRequests(method: String, url: String, headers: [(String, String)], message: String) {
        #expect(throws: HTTPClientError.invalidRequest(message)) {
            try HTTPClient().perform(HTTPClientRequest(method: method, url: url, headers: headers))
        }
    }

    @Test func aZeroTimeoutIsRefusedRatherThanMeaningForever() {
        #expect(throws: HTTPClientError.invalidRequest("timeouts must be positive (connect 0 ms, total 300 ms)")) {
            try HTTPClient().perform(
                HTTPClientRequest(
                    url: "http://127.0.0.1/", timeout: .init(connectMilliseconds: 0, totalMilliseconds: 300)))
        }
    }

    @Test func anInterfaceNameMustBeOne() {
        for name in ["", "a/b", "with space", "sixteen-letters!"] {
            #expect(
                throws: HTTPClientError.invalidRequest("interface name \"\(name)\" is not a network interface's name")
            ) {
                try RequestPlan(HTTPClientRequest(url: "http://127.0.0.1/", localEnd: .interface(name)))
            }
        }
    }

    @Test func theRequestGoesOutAsOneWrite() throws {
        let post = try RequestPlan(
            HTTPClientRequest(
                method: "post", url: "http://192.168.42.1:8080/v1/answers?x=1#frag",
                headers: [("Content-Type", "application/json"), ("X-Empty", ""), ("X-Pad", "  v  ")],
                body: [0x7B, 0x7D]))
        #expect(post.method == "POST")
        #expect(post.destination == .tcp(addresses: [IPAddress(v4: 192, 168, 42, 1)], port: 8080))
        #expect(
            String(decoding: post.wire, as: UTF8.self)
                == "POST /v1/answers?x=1 HTTP/1.1\r\nHost: 192.168.42.1:8080\r\nContent-Type: application/json\r\n"
                + "X-Empty: \r\nX-Pad: v\r\nContent-Length: 2\r\n\r\n{}")
    }

    @Test func aGetSaysNoLengthAndAnEmptyPostSaysZero() throws {
        let get = try RequestPlan(HTTPClientRequest(url: "http://[::1]:80"))
        #expect(get.destination == .tcp(addresses: [IPAddress("::1")!], port: 80))
        #expect(String(decoding: get.wire, as: UTF8.self) == "GET / HTTP/1.1\r\nHost: [::1]:80\r\n\r\n")
        let head = try RequestPlan(HTTPClientRequest(method: "HEAD", url: "http://127.0.0.1?q"))
        #expect(!head.expectsBody)
        #expect(String(decoding: head.wire, as: UTF8.self) == "HEAD /?q HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        let delete = try RequestPlan(HTTPClientRequest(method: "DELETE", url: "http://localhost/t/1"))
        #expect(delete.destination == .tcp(addresses: [IPAddress(v4: 127, 0, 0, 1), IPAddress("::1")!], port: 80))
        #expect(
            String(decoding: delete.wire, as: UTF8.self)
                == "DELETE /t/1 HTTP/1.1\r\nHost: localhost\r\nContent-Length: 0\r\n\r\n")
    }

    @Test func aGivenHostIsSentInsteadAndAUnixSocketNeedsNoAddress() throws {
        let plan = try RequestPlan(
            HTTPClientRequest(
                url: "http://anything/v1/status", headers: [("Host", "board")], unixSocketPath: "/run/a.sock"))
        #expect(plan.destination == .unixSocket(path: "/run/a.sock"))
        #expect(String(decoding: plan.wire, as: UTF8.self) == "GET /v1/status HTTP/1.1\r\nHost: board\r\n\r\n")
    }

    @Test func errorsDescribeThemselves() {
        #expect(
            HTTPClientError.couldNotConnect("connection refused").description
                == "could not connect: connection refused")
        #expect(HTTPClientError.timedOut.description == "timed out waiting for a response")
        #expect(HTTPClientError.responseTooLarge(limit: 1024).description == "response body exceeds 1024 bytes")
        #expect(
            HTTPClientError.malformedResponse("\"SSH-2.0\" is not an HTTP/1.0 or HTTP/1.1 status line").description
                == "malformed response: \"SSH-2.0\" is not an HTTP/1.0 or HTTP/1.1 status line")
    }
}
