/// Resource limits that keep a small board serving while clients misbehave.
package struct HTTPServerLimits: Sendable, Equatable {
    /// Request bodies above this get 413 (docs/protocol.md §3.2: 16 KiB).
    package var maxBodyBytes: Int = 16 * 1024
    /// Connections served at once, per listener.
    package var connectionLimit: Int = 64
    /// Connections served at once to one peer: one address on TCP, one user on a Unix socket (counted however
    /// many processes it runs). On TCP a connection over it takes the slot of that peer's
    /// connection that has waited longest without a complete request (on a Unix socket it is refused); one whose
    /// request came with it, as the phone's does, goes last (docs/security.md, "The phone host cannot lock the phone
    /// out"). 24: room for a client's parallel requests, and still not every slot.
    package var perPeerConnectionLimit: Int = 24
    /// Connections of refused peers at once (TCP), all together, outside `connectionLimit`: each is answered 403
    /// when its headers are in and closed; over it, the refused connection that waited longest is closed (the
    /// new one, when every other is being answered).
    package var refusedConnectionLimit: Int = 16
    /// A connection whose peer takes none of its answer for this long is closed (a waiting one has the deadlines
    /// below instead).
    package var idleTimeoutSeconds: Int = 10
    /// How long a connection may take, from its opening or the end of its last answer, to deliver a whole request
    /// (line, headers, body), however slowly it trickles bytes. The phone sends each request in one segment,
    /// milliseconds after it connects. Also closes idle keep-alive connections at that age.
    package var requestDeadline: Duration = .seconds(5)
    /// How long a connection may take, from its opening, to deliver its first request's line and headers: a
    /// connection that opens and says nothing, or trickles its headers, gives its slot back within it.
    package var headerDeadline: Duration = .seconds(1)
    /// The request line and header fields together, in bytes: a request whose head is longer is answered 431 (and
    /// the connection closed). Also what a connection's unread bytes may grow to while its head is incomplete.
    package var maxHeaderBytes: Int = 32 * 1024
    /// The longest a handler may take to send an answer it gave later (`HTTPReply.later`): past it the
    /// request is answered 503, so no connection stays suspended (and holding its slot) for longer, whatever the
    /// handler does. The agent API's long-polls end well within it (docs/protocol.md §6.6: at most 60 s).
    package var longestDeferral: Duration = .seconds(75)

    package init(
        maxBodyBytes: Int = 16 * 1024, connectionLimit: Int = 64, perPeerConnectionLimit: Int = 24,
        refusedConnectionLimit: Int = 16, idleTimeoutSeconds: Int = 10, requestDeadline: Duration = .seconds(5),
        headerDeadline: Duration = .seconds(1), maxHeaderBytes: Int = 32 * 1024,
        longestDeferral: Duration = .seconds(75)
    ) {
        self.longestDeferral = longestDeferral
        self.maxBodyBytes = maxBodyBytes
        self.connectionLimit = connectionLimit
        self.perPeerConnectionLimit = perPeerConnectionLimit
        self.refusedConnectionLimit = refusedConnectionLimit
        self.idleTimeoutSeconds = idleTimeoutSeconds
        self.requestDeadline = requestDeadline
        self.headerDeadline = headerDeadline
        self.maxHeaderBytes = maxHeaderBytes
    }

    /// What the connection table holds each class to.
    var budget: ConnectionTable.Budget {
        ConnectionTable.Budget(
            perPeer: perPeerConnectionLimit, served: connectionLimit, refused: refusedConnectionLimit)
    }
}
