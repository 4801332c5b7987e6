import BoardAPI
import NetworkAddress

/// The checks a server runs before it reads a request, each as early as what it needs is known. Each is optional:
/// a server without them (the tests' echo server) takes everyone MHD's limits let in.
package struct HTTPServerAdmission: Sendable {
    /// libmicrohttpd's accept policy: the peer's address, before anything is allocated for the connection.
    /// false closes it at once.
    package var acceptPeer: (@Sendable (IPAddress) -> Bool)?
    /// When a TCP connection opens: its peer, the address it was made to, and the name of the interface its
    /// first packet came in on (nil when the kernel did not say). false shuts it down before a byte is read.
    package var acceptArrival: (@Sendable (_ peer: IPAddress, _ local: IPAddress?, _ interface: String?) -> Bool)?
    /// When a request's line and headers are in, before its body is read: an answer refuses the request (sent
    /// at once, and the connection closed after it).
    package var admitHeaders: (@Sendable (HTTPRequest) -> HTTPResponse?)?
    /// A Unix socket peer went over `perPeerConnectionLimit` and this connection was shut down (for the log):
    /// the peer and how many connections it had open.
    package var refusedProcess: (@Sendable (_ peer: HTTPRequest.Credentials, _ open: Int) -> Void)?

    package init(
        acceptPeer: (@Sendable (IPAddress) -> Bool)? = nil,
        acceptArrival: (@Sendable (IPAddress, IPAddress?, String?) -> Bool)? = nil,
        admitHeaders: (@Sendable (HTTPRequest) -> HTTPResponse?)? = nil,
        refusedProcess: (@Sendable (HTTPRequest.Credentials, Int) -> Void)? = nil
    ) {
        self.acceptPeer = acceptPeer
        self.acceptArrival = acceptArrival
        self.admitHeaders = admitHeaders
        self.refusedProcess = refusedProcess
    }
}
