import BoardAPI
import NetworkAddress
import Platform
import Synchronization
import Testing

@testable import HTTPServer

#if canImport(Glibc)
import Glibc
#endif

/// The real server loop on loopback: refusals when a connection opens (answered 403 from their own budget) and
/// when headers are in; eviction at a peer's cap; the header and request deadlines against a trickling client; the
/// agent socket's per-process limit and peer credentials.
@Suite(.serialized) struct HTTPServerAdmissionTests {
    static let stranger = IPAddress(v4: 127, 0, 0, 3)

    func startServer(
        limits: HTTPServerLimits = HTTPServerLimits(), admission: HTTPServerAdmission
    ) throws -> (HTTPServer, UInt16) {
        let socket = try ListeningSocket.tcp(try SocketEndpoint("127.0.0.1:0"))
        guard case let .tcp(bound) = socket.kind else { throw SocketError(operation: "test", address: "", errno: 0) }
        return (
            try HTTPServer(sockets: [socket], limits: limits, admission: admission, handler: HTTPServerLiveTests.echo),
            bound.port
        )
    }

    static let refusal = HTTPResponse(
        status: 403, headers: [("Content-Type", "application/json")],
        body: Array(#"{"status":"error","error":{"code":"forbidden","message":"not you"}}"#.utf8))

    /// A refused peer is answered, not dropped: its connection's refusal goes out (with `Connection: close`) as
    /// soon as its headers are in, its body is never read (403, not 413), the handler never sees it, and the
    /// connection is closed after the answer.
    @Test func aRefusedPeerIsAnswered403AndNeverRouted() throws {
        let asked = Mutex<[IPAddress]>([])
        let routed = Mutex<[HTTPRequest.Peer]>([])
        let socket = try ListeningSocket.tcp(try SocketEndpoint("127.0.0.1:0"))
        guard case let .tcp(bound) = socket.kind else { return }
        let server = try HTTPServer(
            sockets: [socket], limits: HTTPServerLimits(maxBodyBytes: 1024),
            admission: HTTPServerAdmission(refuseConnection: { peer, _, _ in
                asked.withLock { $0.append(peer) }
                return peer == Self.stranger ? Self.refusal : nil
            })
        ) { request in
            routed.withLock { $0.append(request.peer) }
            return HTTPServerLiveTests.echo(request)
        }
        defer { server.stop() }
        for path in ["/status", "/api/live-activity/current", "/"] {
            let refused = try RawHTTPConnection(port: bound.port, source: "127.0.0.3")
            let answer = try refused.request("GET", path)
            #expect(answer.status == 403)
            #expect(answer.headers["content-type"] == "application/json")
            #expect(answer.headers["connection"]?.lowercased() == "close")
            #expect(answer.bodyText.contains(#""code":"forbidden""#))
            #expect(refused.waitForClose(), "closed after the answer")
        }
        let large = try RawHTTPConnection(port: bound.port, source: "127.0.0.3")
        large.send("POST /api/phone/app-state HTTP/1.1\r\nHost: localhost\r\nContent-Length: 16385\r\n\r\n")
        #expect(try large.readResponse().status == 403, "answered before its body, not 413")
        let phone = try RawHTTPConnection(port: bound.port, source: "127.0.0.2")
        #expect(try phone.request("GET", "/status").status == 200)
        #expect(routed.withLock { $0 } == [.ip(IPAddress(v4: 127, 0, 0, 2))], "no refused request reached the handler")
        #expect(asked.withLock { $0 }.last == IPAddress(v4: 127, 0, 0, 2))
    }

    /// Refused peers draw on their own budget: however many of them connect and say nothing, the phone gets a
    /// slot; over the budget the refused connection that waited longest is shut down, so a new one is answered.
    @Test func refusedPeersHoldNoSlotThePhoneNeeds() throws {
        let socket = try ListeningSocket.tcp(try SocketEndpoint("127.0.0.1:0"))
        guard case let .tcp(bound) = socket.kind else { return }
        let server = try HTTPServer(
            sockets: [socket],
            limits: HTTPServerLimits(
                connectionLimit: 2, perPeerConnectionLimit: 2, refusedConnectionLimit: 2, idleTimeoutSeconds: 30,
                requestDeadline: .seconds(30), headerDeadline: .seconds(30)),
            admission: HTTPServerAdmission(refuseConnection: { peer, _, _ in
                peer == Self.stranger ? Self.refusal : nil
            }),
            handler: HTTPServerLiveTests.echo)
        defer { server.stop() }
        var silent: [RawHTTPConnection] = []
        for _ in 0..<6 {
            silent.append(try RawHTTPConnection(port: bound.port, source: "127.0.0.3", receiveTimeoutSeconds: 3))
            usleep(20_000)
        }
        let phone = try RawHTTPConnection(port: bound.port, source: "127.0.0.2")
        #expect(try phone.request("GET", "/current").status == 200, "the phone is served")
        let second = try RawHTTPConnection(port: bound.port, source: "127.0.0.2")
        #expect(try second.request("GET", "/current").status == 200, "both served slots are the phone's")
        #expect(silent[0].waitForClose(), "the oldest silent refused connection made room")
        let late = try RawHTTPConnection(port: bound.port, source: "127.0.0.3")
        #expect(try late.request("GET", "/current").status == 403, "a new refused peer is still answered")
    }

    /// At its cap a peer does not lock anyone out, itself included: a new connection takes the slot of that peer's
    /// connection that has waited longest without a complete request (idle, or trickling its headers).
    @Test func aNewConnectionEvictsThePeersLongestWaitingOne() throws {
        let (server, port) = try startServer(
            limits: HTTPServerLimits(
                perPeerConnectionLimit: 3, idleTimeoutSeconds: 30, requestDeadline: .seconds(30),
                headerDeadline: .seconds(30)),
            admission: HTTPServerAdmission())
        defer { server.stop() }
        let idle = try RawHTTPConnection(port: port, source: "127.0.0.2", receiveTimeoutSeconds: 3)
        usleep(20_000)
        let trickling = try RawHTTPConnection(port: port, source: "127.0.0.2", receiveTimeoutSeconds: 3)
        trickling.send("GET /slow HTTP/1.1\r\nHost: local")
        usleep(20_000)
        let keptAlive = try RawHTTPConnection(port: port, source: "127.0.0.2", receiveTimeoutSeconds: 3)
        #expect(try keptAlive.request("GET", "/first").status == 200)
        usleep(20_000)
        // Another peer has its own budget.
        let other = try RawHTTPConnection(port: port, source: "127.0.0.4")
        #expect(try other.request("GET", "/other").status == 200)
        var phones: [RawHTTPConnection] = []
        for index in 0..<3 {
            phones.append(try RawHTTPConnection(port: port, source: "127.0.0.2"))
            #expect(
                try phones[index].request("GET", "/phone\(index)").status == 200, "connection \(index) over the cap")
        }
        #expect(idle.waitForClose(), "the idle one waited longest")
        #expect(trickling.waitForClose(), "then the one trickling its headers")
        #expect(keptAlive.waitForClose(), "then the one waiting since its answer")
        #expect(try other.request("GET", "/other-again").status == 200, "another peer's connection is untouched")
    }

    /// A connection has `headerDeadline` from its opening to deliver its first line and headers.
    @Test func aSilentConnectionIsCutAtTheHeaderDeadline() throws {
        let (server, port) = try startServer(
            limits: HTTPServerLimits(
                idleTimeoutSeconds: 30, requestDeadline: .seconds(30), headerDeadline: .seconds(1)),
            admission: HTTPServerAdmission())
        defer { server.stop() }
        let silent = try RawHTTPConnection(port: port, receiveTimeoutSeconds: 4)
        let opened = ContinuousClock.now
        #expect(silent.waitForClose(), "cut long before its 30 s request deadline and its 4 s receive timeout")
        #expect(ContinuousClock.now - opened < .seconds(4))
        // Once its headers are in, the rest of the request has the request deadline.
        let phone = try RawHTTPConnection(port: port)
        phone.send("POST /x HTTP/1.1\r\nHost: localhost\r\nContent-Length: 2\r\n\r\n{")
        usleep(1_500_000)
        phone.send("}")
        #expect(try phone.readResponse().status == 200)
    }

    /// The admission check runs on the headers: a refused peer's oversized or chunked body is never read, and its
    /// answer is the refusal, not 413.
    @Test func aRefusalFromTheHeadersComesBeforeTheBodyAnd413() throws {
        let (server, port) = try startServer(
            limits: HTTPServerLimits(maxBodyBytes: 1024),
            admission: HTTPServerAdmission(admitHeaders: { request in
                guard request.peer == .ip(Self.stranger) else { return nil }
                #expect(request.body.isEmpty)
                return HTTPResponse(status: 403, body: Array("refused".utf8))
            }))
        defer { server.stop() }
        let declared = try RawHTTPConnection(port: port, source: "127.0.0.3")
        declared.send("POST /api/phone/app-state HTTP/1.1\r\nHost: localhost\r\nContent-Length: 16385\r\n\r\n")
        let early = try declared.readResponse()
        #expect(early.status == 403)
        #expect(early.bodyText == "refused")
        let chunked = try RawHTTPConnection(port: port, source: "127.0.0.3")
        chunked.send("POST /x HTTP/1.1\r\nHost: localhost\r\nTransfer-Encoding: chunked\r\n\r\n")
        #expect(try chunked.readResponse().status == 403, "answered before any chunk was sent")
        // Anyone else still gets the size rule.
        let phone = try RawHTTPConnection(port: port, source: "127.0.0.2")
        phone.send("POST /x HTTP/1.1\r\nHost: localhost\r\nContent-Length: 1025\r\n\r\n")
        #expect(try phone.readResponse().status == 413)
    }

    @Test func theConnectionCheckSeesTheInterfaceAndCanRefuse() throws {
        let seen = Mutex<[String?]>([])
        let (server, port) = try startServer(
            admission: HTTPServerAdmission(refuseConnection: { peer, local, interface in
                seen.withLock { $0.append(interface) }
                #expect(local == IPAddress(v4: 127, 0, 0, 1))
                return peer == Self.stranger ? Self.refusal : nil
            }))
        defer { server.stop() }
        #expect(try RawHTTPConnection(port: port, source: "127.0.0.2").request("GET", "/").status == 200)
        let refused = try RawHTTPConnection(port: port, source: "127.0.0.3")
        #expect(try refused.request("GET", "/").status == 403)
        #expect(refused.waitForClose())
        #expect(seen.withLock { $0 } == ["lo", "lo"], "loopback connections arrive on lo")
    }

    /// A timeout that restarts at every byte would never cut a trickling client; the request deadline does not
    /// restart. A client that sends one header byte every 200 ms is cut about two seconds after it connected (the
    /// 30 s idle limit is only for a peer that takes none of its answer), before its own 8 s receive timeout,
    /// which would make `waitForClose` false.
    @Test func aTricklingClientIsCutAtTheRequestDeadline() throws {
        let (server, port) = try startServer(
            limits: HTTPServerLimits(
                idleTimeoutSeconds: 30, requestDeadline: .seconds(2), headerDeadline: .seconds(30)),
            admission: HTTPServerAdmission())
        defer { server.stop() }
        let trickler = try RawHTTPConnection(port: port, receiveTimeoutSeconds: 8)
        let cut = Atomic(false)
        let descriptor = trickler.fd
        let sender = Thread {
            for byte in Array("GET /slow HTTP/1.1\r\nHost: localhost\r\nX-Slow: ".utf8)
                + Array(repeating: 65, count: 200)
            {
                guard !cut.load(ordering: .relaxed) else { return }
                var one = byte
                guard Glibc.send(descriptor, &one, 1, Int32(MSG_NOSIGNAL)) == 1 else { return }
                usleep(200_000)
            }
        }
        #expect(trickler.waitForClose(), "the server closed the trickling connection")
        cut.store(true, ordering: .relaxed)
        sender.join()
        // A client that sends its requests whole is never cut, even with pauses between them under the deadline.
        let phone = try RawHTTPConnection(port: port)
        for index in 0..<3 {
            #expect(try phone.request("GET", "/n\(index)").status == 200)
            usleep(300_000)
        }
        // An idle keep-alive connection is closed at the deadline too.
        #expect(phone.waitForClose())
    }

    /// The agent socket counts open connections per uid (SO_PEERCRED): one over the limit is shut down and
    /// reported with the process; requests carry the peer's uid and pid.
    @Test func theUnixSocketLimitsEachProcessAndNamesIt() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path + "/agent.sock"
        let reported = Mutex<[(HTTPRequest.Credentials, Int)]>([])
        let seen = Mutex<[HTTPRequest.Credentials?]>([])
        let server = try HTTPServer(
            sockets: [try ListeningSocket.unix(path: path, mode: 0o600)],
            limits: HTTPServerLimits(perPeerConnectionLimit: 2, idleTimeoutSeconds: 30),
            admission: HTTPServerAdmission(refusedProcess: { peer, open in
                reported.withLock { $0.append((peer, open)) }
            })
        ) { request in
            seen.withLock { $0.append(request.credentials) }
            return HTTPResponse(status: 200, body: Array(request.peerDescription.utf8))
        }
        defer { server.stop() }
        let me = HTTPRequest.Credentials(uid: getuid(), pid: getpid())
        var first: RawHTTPConnection? = try RawHTTPConnection(unixPath: path)
        let second = try RawHTTPConnection(unixPath: path)
        #expect(try first?.request("GET", "/v1/status").bodyText == "uid \(getuid()) pid \(getpid())")
        let third = try RawHTTPConnection(unixPath: path)
        #expect(third.waitForClose(), "the third connection of one uid is shut down")
        #expect(try second.request("GET", "/v1/status").status == 200)
        #expect(reported.withLock { $0.map(\.0) } == [me])
        #expect(reported.withLock { $0.map(\.1) } == [3])
        #expect(seen.withLock { $0 } == [me, me])
        // Closing one makes room again (once the server has seen it close: a bounded wait).
        first = nil
        var servedAgain = false
        for _ in 0..<50 where !servedAgain {
            servedAgain = (try? RawHTTPConnection(unixPath: path).request("GET", "/v1/status").status) == 200
            if !servedAgain { usleep(20_000) }
        }
        #expect(servedAgain)
        #expect(first == nil)
    }

    @Test func anInheritedSocketIsTakenForWhatItIsBoundTo() throws {
        let own = try ListeningSocket.tcp(try SocketEndpoint("127.0.0.1:0"))
        let inherited = try ListeningSocket.inherited(own.descriptor)
        #expect(inherited.kind == own.kind)
        #expect(fcntl(own.descriptor, F_GETFD) & FD_CLOEXEC != 0)
        let server = try HTTPServer(sockets: [inherited], handler: HTTPServerLiveTests.echo)
        defer { server.stop() }
        guard case let .tcp(bound) = inherited.kind else { return }
        #expect(try RawHTTPConnection(port: bound.port).request("GET", "/").status == 200)

        let directory = try TemporaryDirectory()
        let unix = try ListeningSocket.unix(path: directory.path + "/s.sock", mode: 0o600)
        defer { close(unix.descriptor) }
        #expect(try ListeningSocket.inherited(unix.descriptor).kind == .unix(path: directory.path + "/s.sock"))
        let notListening = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(notListening) }
        #expect {
            try ListeningSocket.inherited(notListening)
        } throws: { error in
            (error as? SocketError)?.description
                == "inherit inherited descriptor \(notListening): not a listening socket"
        }
    }
}
