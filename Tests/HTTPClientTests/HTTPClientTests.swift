import Foundation
import HTTPClientCore
import NetworkAddress
import Testing

@testable import HTTPClient

@Suite("HTTPClient over loopback TCP and Unix sockets")
struct HTTPClientTests {
    private let fast = HTTPClientRequest.Timeout(connectMilliseconds: 2_000, totalMilliseconds: 5_000)

    @Test func getSendsHeadersAndReadsStatusHeadersAndBody() throws {
        let server = try TestServer(
            behavior: .respond { _ in
                httpResponse(
                    200, "OK",
                    headers: [("X-Answer", " forty-two "), ("Set-Cookie", "a=1"), ("set-cookie", "b=2")],
                    body: Array("hello".utf8))
            })
        defer { server.stop() }
        let response = try HTTPClient().perform(
            HTTPClientRequest(
                url: server.baseURL + "/v1/status?x=1",
                headers: [("X-Client", "aidenctl"), ("Accept", "application/json")],
                timeout: fast))
        #expect(response.status == 200)
        #expect(response.body == Array("hello".utf8))
        #expect(response.headers["x-answer"] == "forty-two")
        #expect(response.headers["set-cookie"] == "a=1, b=2")
        #expect(response.headers["content-length"] == "5")
        let request = try #require(server.requests.first)
        #expect(request.method == "GET")
        #expect(request.path == "/v1/status?x=1")
        #expect(request.header("x-client") == "aidenctl")
        #expect(request.header("accept") == "application/json")
        #expect(request.header("content-type") == nil)
        #expect(request.body.isEmpty)
    }

    @Test(arguments: ["POST", "PATCH", "PUT", "DELETE"])
    func methodsWithABodySendItVerbatim(method: String) throws {
        let server = try TestServer(
            behavior: .respond { request in
                httpResponse(201, "Created", headers: [("Content-Type", "application/json")], body: request.body)
            })
        defer { server.stop() }
        let body = Array(#"{"task_title":"Open Settings","progress":0.5}"#.utf8)
        let response = try HTTPClient().perform(
            HTTPClientRequest(
                method: method, url: server.baseURL + "/v1/tasks",
                headers: [("Content-Type", "application/json"), ("Idempotency-Key", "k1")], body: body, timeout: fast))
        #expect(response.status == 201)
        #expect(response.body == body)
        #expect(response.headers["content-type"] == "application/json")
        let request = try #require(server.requests.first)
        #expect(request.method == method)
        #expect(request.body == body)
        #expect(request.header("content-type") == "application/json")
        #expect(request.header("idempotency-key") == "k1")
        #expect(request.header("expect") == nil)
    }

    @Test func aBodyWithoutContentTypeIsNotLabelledAsAForm() throws {
        let server = try TestServer(behavior: .respond { _ in httpResponse(204, "No Content") })
        defer { server.stop() }
        let big = [UInt8](repeating: UInt8(ascii: "a"), count: 70_000)  // larger than one segment: no Expect round trip
        let response = try HTTPClient().perform(
            HTTPClientRequest(
                method: "patch", url: server.baseURL + "/x", body: big, timeout: fast))
        #expect(response.status == 204)
        let request = try #require(server.requests.first)
        #expect(request.method == "PATCH")
        #expect(request.header("content-type") == nil)
        #expect(request.header("expect") == nil)
        #expect(request.body == big)
    }

    @Test func anEmptyPostSendsAZeroLengthBody() throws {
        let server = try TestServer(behavior: .respond { _ in httpResponse(200, "OK") })
        defer { server.stop() }
        let response = try HTTPClient().perform(
            HTTPClientRequest(method: "POST", url: server.baseURL + "/", timeout: fast))
        #expect(response.status == 200)
        #expect(response.body.isEmpty)
        let request = try #require(server.requests.first)
        #expect(request.method == "POST")
        #expect(request.header("content-length") == "0")
    }

    @Test(arguments: [
        (400, "Bad Request"), (404, "Not Found"), (409, "Conflict"), (413, "Content Too Large"),
        (500, "Internal Server Error"),
    ])
    func errorStatusesAreAnswersNotFailures(status: Int, reason: String) throws {
        let body = Array(#"{"status":"error"}"#.utf8)
        let server = try TestServer(behavior: .respond { _ in httpResponse(status, reason, body: body) })
        defer { server.stop() }
        let response = try HTTPClient().perform(HTTPClientRequest(url: server.baseURL + "/", timeout: fast))
        #expect(response.status == status)
        #expect(response.body == body)
    }

    @Test func redirectsAreNotFollowed() throws {
        let server = try TestServer(
            behavior: .respond { _ in
                httpResponse(302, "Found", headers: [("Location", "http://127.0.0.1:1/elsewhere")])
            })
        defer { server.stop() }
        let response = try HTTPClient().perform(HTTPClientRequest(url: server.baseURL + "/", timeout: fast))
        #expect(response.status == 302)
        #expect(response.headers["location"] == "http://127.0.0.1:1/elsewhere")
        #expect(server.requests.count == 1)
    }

    @Test func informationalResponsesAreSkippedAndTheirHeadersDropped() throws {
        let server = try TestServer(
            behavior: .respond { _ in
                Array("HTTP/1.1 100 Continue\r\nX-Early: yes\r\n\r\n".utf8)
                    + httpResponse(200, "OK", headers: [("X-Final", "yes")], body: Array("done".utf8))
            })
        defer { server.stop() }
        let response = try HTTPClient().perform(HTTPClientRequest(url: server.baseURL + "/", timeout: fast))
        #expect(response.status == 200)
        #expect(response.headers["x-early"] == nil)
        #expect(response.headers["x-final"] == "yes")
        #expect(response.body == Array("done".utf8))
    }

    @Test func overAUnixSocket() throws {
        let directory = try temporaryDirectory()
        let path = directory + "/agent.sock"
        let server = try TestServer(
            unixPath: path,
            behavior: .respond { request in
                let echo = "\(request.method) \(request.path) \(request.header("host") ?? "-")"
                return httpResponse(200, "OK", body: Array(echo.utf8))
            })
        defer {
            server.stop()
            rmdir(directory)
        }
        let response = try HTTPClient().perform(
            HTTPClientRequest(
                method: "POST", url: "http://localhost/v1/tasks", body: Array("{}".utf8), unixSocketPath: path,
                timeout: fast))
        #expect(response.status == 200)
        #expect(String(decoding: response.body, as: UTF8.self) == "POST /v1/tasks localhost")
    }

    @Test func oneClientKeepsItsConnectionAlive() throws {
        let server = try TestServer(
            behavior: .respond { request in
                httpResponse(200, "OK", body: Array(request.path.utf8))
            })
        defer { server.stop() }
        let client = HTTPClient()
        let first = try client.perform(HTTPClientRequest(url: server.baseURL + "/one", timeout: fast))
        let second = try client.perform(
            HTTPClientRequest(
                method: "POST", url: server.baseURL + "/two",
                body: [1, 2, 3], timeout: fast))
        let third = try client.perform(HTTPClientRequest(url: server.baseURL + "/three", timeout: fast))
        #expect(first.body == Array("/one".utf8))
        #expect(second.body == Array("/two".utf8))
        #expect(third.body == Array("/three".utf8))
        #expect(server.requests.map(\.method) == ["GET", "POST", "GET"])
        #expect(server.connectionCount == 1)
        #expect(server.requests[2].body.isEmpty)  // the POST's body does not follow into the next GET
    }

    @Test func aConnectionTheServerClosedIsNoticedBeforeTheNextRequest() throws {
        let server = try TestServer(
            behavior: .answerOnceThenClose { request in
                httpResponse(200, "OK", body: Array(request.path.utf8))
            })
        defer { server.stop() }
        let client = HTTPClient()
        let first = try client.perform(HTTPClientRequest(url: server.baseURL + "/one", timeout: fast))
        let second = try client.perform(HTTPClientRequest(url: server.baseURL + "/two", timeout: fast))
        #expect(first.body == Array("/one".utf8))
        #expect(second.body == Array("/two".utf8))
        #expect(server.requests.map(\.path) == ["/one", "/two"])
        #expect(server.connectionCount == 2)
    }

    @Test func aKeptConnectionClosedAsTheRequestArrivesIsTriedOnceMoreOnANewOne() throws {
        let server = try TestServer(
            behavior: .hangUpAfter(answered: 1) { request in httpResponse(200, "OK", body: Array(request.path.utf8)) })
        defer { server.stop() }
        let client = HTTPClient()
        _ = try client.perform(HTTPClientRequest(url: server.baseURL + "/one", timeout: fast))
        let second = try client.perform(
            HTTPClientRequest(method: "POST", url: server.baseURL + "/two", body: [1], timeout: fast))
        #expect(second.body == Array("/two".utf8))
        #expect(server.requests.map(\.path) == ["/one", "/two", "/two"])
        #expect(server.connectionCount == 2)
    }

    @Test func aNewConnectionClosedWithoutAnAnswerIsNotTriedAgain() throws {
        let server = try TestServer(behavior: .hangUp)
        defer { server.stop() }
        #expect(throws: HTTPClientError.connectionLost("the server closed the connection without answering")) {
            try HTTPClient().perform(HTTPClientRequest(url: server.baseURL + "/", timeout: fast))
        }
        #expect(server.requests.count == 1)
    }

    @Test func anAnswerWithoutALengthRunsToTheEndOfTheConnection() throws {
        let server = try TestServer(
            behavior: .answerOnceThenClose { _ in Array("HTTP/1.0 200 OK\r\n\r\nall of it".utf8) })
        defer { server.stop() }
        let response = try HTTPClient().perform(HTTPClientRequest(url: server.baseURL + "/", timeout: fast))
        #expect(response.status == 200)
        #expect(response.body == Array("all of it".utf8))
    }

    @Test func aChunkedAnswerIsReadWhole() throws {
        let server = try TestServer(
            behavior: .respond { _ in
                Array(
                    "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n4\r\nWiki\r\n5;x=1\r\npedia\r\n0\r\n\r\n".utf8
                )
            })
        defer { server.stop() }
        let client = HTTPClient()
        let response = try client.perform(HTTPClientRequest(url: server.baseURL + "/", timeout: fast))
        #expect(response.body == Array("Wikipedia".utf8))
        _ = try client.perform(HTTPClientRequest(url: server.baseURL + "/", timeout: fast))
        #expect(server.connectionCount == 1)
    }

    @Test func aKeptConnectionThatEndsAfterPartOfAnAnswerIsNotTriedAgain() throws {
        let server = try TestServer(
            behavior: .twoThenClose(
                first: httpResponse(200, "OK", body: Array("one".utf8)),
                second: Array("HTTP/1.1 200 OK\r\nContent-Length: 9\r\n\r\npart".utf8)))
        defer { server.stop() }
        let client = HTTPClient()
        _ = try client.perform(HTTPClientRequest(url: server.baseURL + "/one", timeout: fast))
        #expect(throws: HTTPClientError.connectionLost("the connection closed in the middle of the response")) {
            try client.perform(HTTPClientRequest(url: server.baseURL + "/two", timeout: fast))
        }
        #expect(server.requests.map(\.path) == ["/one", "/two"])
    }

    @Test func aServerThatNeverStopsSendingIsCutOffAtTheDeadline() throws {
        for head in [
            "HTTP/1.1 200 OK\r\n\r\n",  // a body to the end of a connection that does not end
            "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n1;",  // one chunk extension without end
        ] {
            let server = try TestServer(behavior: .endless(head: Array(head.utf8)))
            defer { server.stop() }
            let start = ContinuousClock.now
            #expect(throws: HTTPClientError.timedOut) {
                try HTTPClient(maxResponseBytes: 1 << 20).perform(
                    HTTPClientRequest(
                        url: server.baseURL + "/", timeout: .init(connectMilliseconds: 300, totalMilliseconds: 300)))
            }
            #expect(ContinuousClock.now - start < .seconds(3))
        }
    }

    @Test func aHeadAnswerEndsAtItsHead() throws {
        let server = try TestServer(
            behavior: .respond { _ in Array("HTTP/1.1 200 OK\r\nContent-Length: 42\r\n\r\n".utf8) })
        defer { server.stop() }
        let client = HTTPClient()
        let response = try client.perform(HTTPClientRequest(method: "HEAD", url: server.baseURL + "/", timeout: fast))
        #expect(response.status == 200)
        #expect(response.body.isEmpty)
        _ = try client.perform(HTTPClientRequest(method: "HEAD", url: server.baseURL + "/", timeout: fast))
        #expect(server.connectionCount == 1)
    }

    @Test func aNameIsNotResolved() {
        #expect(
            throws: HTTPClientError.invalidRequest(
                "host \"board.local\" is not an IP address or localhost (no names are resolved)")
        ) {
            try HTTPClient().perform(HTTPClientRequest(url: "http://board.local:8080/", timeout: fast))
        }
    }

    @Test func aMissingInterfaceIsNoSuchDevice() {
        #expect(throws: HTTPClientError.couldNotConnect("no such device")) {
            try HTTPClient().perform(
                HTTPClientRequest(url: "http://127.0.0.1:9/", timeout: fast, localEnd: .interface("aidennone0")))
        }
    }

    @Test func theLocalAddressIsBound() throws {
        let server = try TestServer(behavior: .respond { _ in httpResponse(200, "OK") })
        defer { server.stop() }
        _ = try HTTPClient().perform(
            HTTPClientRequest(
                url: server.baseURL + "/", timeout: fast,
                localEnd: .address(IPAddress(v4: 127, 0, 0, 2))))
        #expect(server.requests.first?.peer == "127.0.0.2")
    }

    @Test func aClosedPortIsCouldNotConnect() throws {
        let port = try unusedPort()
        #expect(throws: HTTPClientError.couldNotConnect("connection refused")) {
            try HTTPClient().perform(HTTPClientRequest(url: "http://127.0.0.1:\(port)/", timeout: fast))
        }
    }

    @Test func aMissingUnixSocketIsCouldNotConnect() throws {
        let directory = try temporaryDirectory()
        defer { rmdir(directory) }
        #expect(throws: HTTPClientError.couldNotConnect("no such file or directory")) {
            try HTTPClient().perform(
                HTTPClientRequest(
                    url: "http://localhost/v1/status",
                    unixSocketPath: directory + "/none.sock", timeout: fast))
        }
    }

    @Test func aServerThatNeverAnswersTimesOut() throws {
        let server = try TestServer(behavior: .silent)
        defer { server.stop() }
        let started = ContinuousClock.now
        #expect(throws: HTTPClientError.timedOut) {
            try HTTPClient().perform(
                HTTPClientRequest(
                    url: server.baseURL + "/", timeout: .init(connectMilliseconds: 300, totalMilliseconds: 300)))
        }
        let elapsed = ContinuousClock.now - started
        #expect(elapsed >= .milliseconds(250))
        #expect(elapsed < .seconds(3))
    }

    @Test func aServerThatHangsUpIsConnectionLost() throws {
        let server = try TestServer(behavior: .hangUp)
        defer { server.stop() }
        let error = #expect(throws: HTTPClientError.self) {
            try HTTPClient().perform(HTTPClientRequest(url: server.baseURL + "/", timeout: fast))
        }
        guard case .connectionLost = error else {
            Issue.record("expected connectionLost, got \(String(describing: error))")
            return
        }
    }

    @Test func aBodyAtTheLimitIsAccepted() throws {
        let body = [UInt8](repeating: 7, count: 1024)
        let server = try TestServer(behavior: .respond { _ in httpResponse(200, "OK", body: body) })
        defer { server.stop() }
        let response = try HTTPClient(maxResponseBytes: 1024).perform(
            HTTPClientRequest(url: server.baseURL + "/", timeout: fast))
        #expect(response.body == body)
    }

    @Test func aLargerDeclaredBodyIsRefused() throws {
        let server = try TestServer(
            behavior: .respond { _ in
                httpResponse(200, "OK", body: [UInt8](repeating: 7, count: 1025))
            })
        defer { server.stop() }
        #expect(throws: HTTPClientError.responseTooLarge(limit: 1024)) {
            try HTTPClient(maxResponseBytes: 1024).perform(HTTPClientRequest(url: server.baseURL + "/", timeout: fast))
        }
    }

    @Test func aLargerUndeclaredBodyIsCutOff() throws {
        // No Content-Length: the body runs to the end, and the client stops reading at the limit.
        let server = try TestServer(
            behavior: .respond { _ in
                Array("HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n".utf8) + [UInt8](repeating: 7, count: 64 * 1024)
            })
        defer { server.stop() }
        #expect(throws: HTTPClientError.responseTooLarge(limit: 1024)) {
            try HTTPClient(maxResponseBytes: 1024).perform(HTTPClientRequest(url: server.baseURL + "/", timeout: fast))
        }
    }

    @Test func theDefaultLimitIsOneMebibyte() {
        #expect(HTTPClient().maxResponseBytes == 1_048_576)
    }
}

/// A loopback port nothing listens on: bound (so no one else takes it meanwhile) but never listening.
private func unusedPort() throws -> UInt16 {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    defer { close(fd) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let rc = withUnsafeMutablePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
            bind(fd, pointer, length) == 0 ? getsockname(fd, pointer, &length) : -1
        }
    }
    guard rc == 0 else { throw POSIXError(.EADDRINUSE) }
    return UInt16(bigEndian: address.sin_port)
}
