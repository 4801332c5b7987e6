import Testing

@testable import HTTPClient

@Suite("Requests libcurl would send wrongly are refused before it sees them")
struct RequestPlanTests {
    static let notHTTP = " is not an http:// URL without spaces or control characters"

    @Test(arguments: [
        ("GE T", "http://127.0.0.1/", [(String, String)](), "method \"GE T\" is not an HTTP token"),
        ("GET", "file:///etc/passwd", [], "URL \"file:///etc/passwd\"" + notHTTP),
        ("GET", "http://127.0.0.1/a b", [], "URL \"http://127.0.0.1/a b\"" + notHTTP),
        ("GET", "http://127.0.0.1/", [("X-A", "1\r\nX-Injected: 2")], "header X-A contains a control character"),
        ("GET", "http://127.0.0.1/", [("Bad Name", "1")], "header name \"Bad Name\" is not an HTTP token"),
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

    @Test func curlDefaultsAreBlankedUnlessGiven() throws {
        let post = try RequestPlan(HTTPClientRequest(method: "POST", url: "http://x/", body: [1]))
        #expect(post.bodyMode == .withBody)
        #expect(post.headerLines == ["Content-Type:", "Expect:"])
        let given = try RequestPlan(
            HTTPClientRequest(
                method: "post", url: "http://x/", headers: [("Content-Type", "application/json"), ("X-Empty", "")],
                body: [1]))
        #expect(given.method == "POST")
        #expect(given.headerLines == ["Content-Type: application/json", "X-Empty;", "Expect:"])
        let get = try RequestPlan(HTTPClientRequest(url: "http://x/"))
        #expect(get.bodyMode == .get)
        #expect(get.headerLines == ["Expect:"])
        #expect(try RequestPlan(HTTPClientRequest(method: "HEAD", url: "http://x/")).bodyMode == .head)
        #expect(try RequestPlan(HTTPClientRequest(method: "DELETE", url: "http://x/")).bodyMode == .withBody)
    }

    @Test func errorsDescribeThemselves() {
        #expect(
            HTTPClientError.couldNotConnect("connection refused").description
                == "could not connect: connection refused")
        #expect(HTTPClientError.timedOut.description == "timed out waiting for a response")
        #expect(HTTPClientError.responseTooLarge(limit: 1024).description == "response body exceeds 1024 bytes")
        #expect(
            HTTPClientError.other(code: 3, message: "URL using bad/illegal format").description
                == "libcurl error 3: URL using bad/illegal format")
    }
}
