import BoardAPI
import NetworkAddress

/// The checks a server runs before it reads a request, each as early as what it needs is known. Each is optional:
/// a server without them (the tests' echo server) takes everyone the limits let in.
package struct HTTPServerAdmission: Sendable {
    /// When a TCP connection opens: its peer, the address it was made to, and the name of the interface its
    /// first packet came in on (nil when the kernel did not say). An answer refuses the connection: it is drawn
    /// from the refused peers' own budget (`HTTPServerLimits.refusedConnectionLimit`), not the phone's, and
    /// answered with it (and `Connection: close`) as soon as its request's line and headers are in, before any
    /// body is read; its request is never handed to the handler.
    package var refuseConnection:
        (@Sendable (_ peer: IPAddress, _ local: IPAddress?, _ interface: String?) -> HTTPResponse?)?
    /// When a request's line and headers are in, before its body is read: an answer refuses the request (sent
    /// at once, and the connection closed after it). Every request the handler gets has passed it.
    package var admitHeaders: (@Sendable (HTTPRequest) -> HTTPResponse?)?
    /// A Unix socket peer went over `perPeerConnectionLimit` and this connection was closed (for the log):
    /// the peer and how many connections it had open.
    package var refusedProcess: (@Sendable (_ peer: HTTPRequest.Credentials, _ open: Int) -> Void)?

    package init(
        refuseConnection: (@Sendable (IPAddress, IPAddress?, String?) -> HTTPResponse?)? = nil,
        admitHeaders: (@Sendable (HTTPRequest) -> HTTPResponse?)? = nil,
        refusedProcess: (@Sendable (HTTPRequest.Credentials, Int) -> Void)? = nil
    ) {
        self.refuseConnection = refuseConnection
        self.admitHeaders = admitHeaders
        self.refusedProcess = refusedProcess
    }
}
