import BoardAPI
import NetworkAddress
import Platform
import Synchronization
import Testing

@testable import HTTPServer

#if canImport(Glibc)
import Glibc
#endif

/// The real server loop on loopback: framing, limits and timeouts that pure router tests cannot see.
@Suite(.serialized) struct HTTPServerLiveTests {
    /// Echoes what the server saw, so tests can check the request value the router would get.
    static let echo: HTTPServer.Handler = { request in
        let query = request.query.map { "\($0.name)=\($0.value)" }.joined(separator: "&")
        let text =
            "\(request.method) \(request.path) ?\(query) peer=\(request.peer) "
            + "local=\(request.localAddress?.description ?? "-") host=\(request.header("host") ?? "-") "
            + "body=\(request.body.count)"
        return HTTPResponse(
            status: 200, headers: [("Content-Type", "text/plain"), ("ETag", "\"7\"")],
            body: Array(text.utf8))
    }

    func startServer(
        limits: HTTPServerLimits = HTTPServerLimits(),
        handler: @escaping HTTPServer.Handler = echo
    ) throws -> (HTTPServer, UInt16) {
        let socket = try ListeningSocket.tcp(try SocketEndpoint("127.0.0.1:0"))
        guard case let .tcp(bound) = socket.kind else { throw SocketError(operation: "test", address: "", errno: 0) }
        return (try HTTPServer(sockets: [socket], limits: limits, handler: handler), bound.port)
    }

    @Test func deliversTheWholeRequestToTheHandler() throws {
        let (server, port) = try startServer()
        defer { server.stop() }
        let connection = try RawHTTPConnection(port: port)
        let response = try connection.request(
            "POST", "/api/x%20y?phone_id=p1&flag&phone_id=p2", host: "127.0.0.1:\(port)",
            body: Array("hello".utf8))
        #expect(response.status == 200)
        #expect(
            response.bodyText
                == "POST /api/x y ?phone_id=p1&flag=&phone_id=p2 peer=127.0.0.1 local=127.0.0.1 host=127.0.0.1:\(port) body=5"
        )
        #expect(response.headers["etag"] == "\"7\"")
        #expect(response.headers["content-type"] == "text/plain")
    }

    /// `listen = ["[::]:8080"]` is dual-stack: an IPv4 client arrives as `::ffff:a.b.c.d`, and the
    /// access policy must judge it as the IPv4 address (docs/protocol.md §3.1).
    @Test func dualStackListenersReportMappedPeersThatThePolicyJudgesAsIPv4() throws {
        let socket = try ListeningSocket.tcp(try SocketEndpoint("[::]:0"))
        guard case let .tcp(bound) = socket.kind else { return }
        let policy = AccessPolicy(allowedSubnets: [try Subnet("192.168.42.0/24")], listenAddresses: [bound.address])
        let server = try HTTPServer(sockets: [socket]) { request in
            let decision = policy.decide(request)
            return HTTPResponse(
                status: decision == .allow ? 200 : 403,
                body: Array("\(request.peer) \(request.localAddress?.description ?? "-")".utf8))
        }
        defer { server.stop() }
        let response = try RawHTTPConnection(port: bound.port).request(
            "GET", "/status", host: "127.0.0.1:\(bound.port)")
        #expect(response.bodyText == "::ffff:127.0.0.1 ::ffff:127.0.0.1")
        #expect(response.status == 200, "a mapped loopback peer is loopback")
    }

    @Test func keepsConnectionsAlive() throws {
        let (server, port) = try startServer()
        defer { server.stop() }
        let connection = try RawHTTPConnection(port: port)
        for index in 0..<5 {
            let response = try connection.request("GET", "/n\(index)")
            #expect(response.status == 200)
            #expect(response.bodyText.hasPrefix("GET /n\(index) "))
            #expect(response.headers["connection"]?.lowercased() != "close")
        }
    }

    @Test func refusesBodiesOverTheLimitWith413() throws {
        let (server, port) = try startServer(limits: HTTPServerLimits(maxBodyBytes: 1024))
        defer { server.stop() }
        // Declared too large: refused before the body is read.
        let declared = try RawHTTPConnection(port: port)
        declared.send("POST /v1/tasks HTTP/1.1\r\nHost: localhost\r\nContent-Length: 1025\r\n\r\n")
        let early = try declared.readResponse()
        #expect(early.status == 413)
        #expect(early.bodyText.contains("\"code\":\"payload_too_large\""))
        // Chunked, so only counted while reading: still 413, and the server keeps serving.
        let chunked = try RawHTTPConnection(port: port)
        let chunk = String(repeating: "a", count: 600)
        chunked.send(
            "POST /v1/tasks HTTP/1.1\r\nHost: localhost\r\nTransfer-Encoding: chunked\r\n\r\n"
                + "258\r\n\(chunk)\r\n258\r\n\(chunk)\r\n0\r\n\r\n")
        #expect(try chunked.readResponse().status == 413)
        // Exactly at the limit is fine.
        let exact = try RawHTTPConnection(port: port)
        let response = try exact.request("POST", "/ok", body: [UInt8](repeating: 65, count: 1024))
        #expect(response.status == 200)
        #expect(response.bodyText.hasSuffix("body=1024"))
    }

    /// The ECM listener's small head limit (8 KiB): ordinary requests, bodies larger than it, and
    /// a keep-alive series all work; headers over it are refused (431), and the server goes on.
    @Test func aSmallHeaderLimitServesOrdinaryRequestsAndRefusesHugeHeaders() throws {
        let (server, port) = try startServer(limits: HTTPServerLimits(maxHeaderBytes: 8 * 1024))
        defer { server.stop() }
        let connection = try RawHTTPConnection(port: port)
        for index in 0..<3 {
            let response = try connection.request(
                "GET", "/n\(index)", headers: ["Cookie": String(repeating: "c", count: 2_000)])
            #expect(response.status == 200)
        }
        let body = try connection.request("POST", "/big", body: [UInt8](repeating: 66, count: 16 * 1024))
        #expect(body.bodyText.hasSuffix("body=16384"), "the body is not held to the head's limit")
        let huge = try RawHTTPConnection(port: port)
        huge.send("GET /x HTTP/1.1\r\nHost: localhost\r\nCookie: \(String(repeating: "c", count: 12_000))\r\n\r\n")
        let refused = try huge.readResponse()
        #expect(refused.status == 431)
        #expect(try RawHTTPConnection(port: port).request("GET", "/after").status == 200)
    }

    /// The header deadline (1 s) cuts a connection that says nothing and one whose head never ends.
    @Test func closesIdleAndTricklingConnections() throws {
        let (server, port) = try startServer()
        defer { server.stop() }
        let clock = ContinuousClock()
        let opened = clock.now
        let idle = try RawHTTPConnection(port: port, receiveTimeoutSeconds: 6)
        #expect(idle.waitForClose(), "an idle connection must be cut off by the server")
        let partial = try RawHTTPConnection(port: port, receiveTimeoutSeconds: 6)
        partial.send("GET / HTTP/1.1\r\nHost: loc")
        #expect(partial.waitForClose(), "a half-sent request must not hold its slot forever")
        // Both within the header deadline (1 s each, in turn), not the request deadline's 5 s.
        #expect(clock.now - opened < .seconds(4))
    }

    @Test func aFloodFromOnePeerDoesNotStarveAnother() throws {
        let limits = HTTPServerLimits(connectionLimit: 32, perPeerConnectionLimit: 8, idleTimeoutSeconds: 30)
        let (server, port) = try startServer(limits: limits)
        defer { server.stop() }
        // 40 idle connections from 127.0.0.3: more than the per-peer and the total limit.
        var flood: [RawHTTPConnection] = []
        for _ in 0..<40 {
            if let connection = try? RawHTTPConnection(port: port, source: "127.0.0.3", receiveTimeoutSeconds: 1) {
                flood.append(connection)
            }
        }
        let wellBehaved = try RawHTTPConnection(port: port, source: "127.0.0.2")
        let response = try wellBehaved.request("GET", "/status")
        #expect(response.status == 200)
        #expect(response.bodyText.contains("peer=127.0.0.2"))
        // The flood beyond the per-peer limit was refused (closed), not queued.
        let refused = flood.filter { $0.waitForClose() }.count
        #expect(refused >= 40 - limits.perPeerConnectionLimit)
    }

    @Test func servesOnAUnixSocketWithItsFileMode() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path + "/agent.sock"
        let socket = try ListeningSocket.unix(path: path, mode: 0o660)
        let server = try HTTPServer(sockets: [socket], handler: Self.echo)
        defer { server.stop() }
        var status = stat()
        #expect(stat(path, &status) == 0)
        #expect(status.st_mode & 0o777 == 0o660)
        let connection = try RawHTTPConnection(unixPath: path)
        let response = try connection.request("GET", "/v1/tasks")
        #expect(response.status == 200)
        #expect(response.bodyText.contains("peer=unix-socket local=-"))
    }

    @Test func bindFailuresNameTheAddress() throws {
        let first = try ListeningSocket.tcp(try SocketEndpoint("127.0.0.1:0"))
        defer { close(first.descriptor) }
        guard case let .tcp(bound) = first.kind else { return }
        #expect {
            try ListeningSocket.tcp(bound)
        } throws: { error in
            let socketError = error as? SocketError
            return socketError?.operation == "bind" && socketError?.address == bound.description
                && socketError?.description.contains("Address already in use") == true
        }
    }

    @Test func refusesToReplaceAFileThatIsNotASocket() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path + "/agent.sock"
        let fd = open(path, O_CREAT | O_WRONLY, 0o600)
        close(fd)
        #expect(throws: SocketError.self) { try ListeningSocket.unix(path: path, mode: 0o660) }
        var status = stat()
        #expect(stat(path, &status) == 0 && status.st_mode & S_IFMT == S_IFREG, "the file must be left alone")
    }

    @Test func manyRequestsOnManyConnectionsAllSucceed() throws {
        let (server, port) = try startServer()
        defer { server.stop() }
        let served = Atomic<Int>(0)
        let threads = (0..<4).map { _ in
            Thread {
                guard let connection = try? RawHTTPConnection(port: port) else { return }
                for _ in 0..<50 where (try? connection.request("GET", "/"))?.status == 200 {
                    served.add(1, ordering: .relaxed)
                }
            }
        }
        threads.forEach { $0.join() }
        #expect(served.load(ordering: .relaxed) == 200)
    }

    /// Reusable answers (`HTTPResponse.reusable`) are built once and sent again: every request still gets exactly
    /// the value its handler gave, when the value changes, when more values come than the server keeps, for HEAD,
    /// and on several connections at once.
    @Test func reusableAnswersAreSentAsTheHandlerGivesThem() throws {
        let (server, port) = try startServer { request in
            let name = String(request.path.dropFirst())
            return HTTPResponse(
                status: name.hasPrefix("same") ? 304 : 200, headers: [("ETag", "\"\(name)\""), ("X-Name", name)],
                body: name.hasPrefix("same") ? [] : Array("value \(name)".utf8), reusable: true)
        }
        defer { server.stop() }
        let names = (0..<2 * PreparedResponses.capacity).map { "v\($0)" } + ["v0", "v1", "same", "v0", "same"]
        let failures = Atomic<Int>(0)
        let threads = (0..<3).map { _ in
            Thread {
                guard let connection = try? RawHTTPConnection(port: port) else {
                    failures.add(1, ordering: .relaxed)
                    return
                }
                for name in names {
                    let response = try? connection.request("GET", "/\(name)")
                    let expected = name == "same" ? "" : "value \(name)"
                    if response?.bodyText != expected || response?.headers["x-name"] != name
                        || response?.headers["etag"] != "\"\(name)\""
                    {
                        failures.add(1, ordering: .relaxed)
                    }
                }
            }
        }
        threads.forEach { $0.join() }
        #expect(failures.load(ordering: .relaxed) == 0)
        let connection = try RawHTTPConnection(port: port)
        connection.send("HEAD /v3 HTTP/1.1\r\nHost: localhost\r\n\r\n")
        let head = try connection.readResponse(toHEAD: true)
        #expect(head.status == 200 && head.headers["content-length"] == "8" && head.headers["x-name"] == "v3")
        #expect(try connection.request("GET", "/v3").bodyText == "value v3", "no body after the HEAD's head")
    }
}

/// A directory under /tmp removed with everything in it when the value goes away.
final class TemporaryDirectory {
    let path: String

    init() throws {
        var template = Array("/tmp/aiden-test-XXXXXX".utf8CString)
        let created = template.withUnsafeMutableBufferPointer { buffer -> String? in
            guard let base = buffer.baseAddress, mkdtemp(base) != nil else { return nil }
            return String(cString: base)
        }
        guard let created else { throw SocketError(operation: "mkdtemp", address: "/tmp", errno: errno) }
        path = created
    }

    deinit {
        var argv: [UnsafeMutablePointer<CChar>?] = [strdup("/bin/rm"), strdup("-rf"), strdup(path), nil]
        var pid: pid_t = 0
        if posix_spawn(&pid, "/bin/rm", nil, nil, &argv, nil) == 0 { waitpid(pid, nil, 0) }
        argv.forEach { free($0) }
    }
}

/// A joinable POSIX thread running a closure (tests only).
final class Thread: @unchecked Sendable {
    private var handle = pthread_t()
    private let body: @Sendable () -> Void

    init(_ body: @escaping @Sendable () -> Void) {
        self.body = body
        let retained = Unmanaged.passRetained(self).toOpaque()
        pthread_create(
            &handle, nil,
            { context in
                guard let context else { return nil }
                let thread = Unmanaged<Thread>.fromOpaque(context).takeRetainedValue()
                thread.body()
                return nil
            }, retained)
    }

    func join() { pthread_join(handle, nil) }
}
