import BoardAPI
import NetworkAddress

/// One open connection of a `ServerLoop`, and only its loop's: the bytes read and not yet taken by the parser, the
/// request whose head is in, the answer owed or being sent. Mutable and unlocked, since one thread touches it.
final class ServerConnection {
    /// The loop's key for it (epoll's and the connection table's), never reused.
    let id: UInt
    let descriptor: Int32
    let peer: HTTPRequest.Peer
    let local: IPAddress?
    let credentials: HTTPRequest.Credentials?
    /// The admission refused it when it opened: each request it makes is answered with this (403), never routed.
    let refusal: HTTPResponse?

    var parser: HTTPRequestParser
    /// What `recv` gave that the parser has not taken yet, from `cursor`.
    var input: [UInt8] = []
    var cursor = 0
    /// The request whose line and headers are in, waiting for its body (and whether it asked for `HEAD`, or to
    /// close after).
    var pending: (request: HTTPRequest, head: HTTPRequestParser.Head)?
    /// Where the pending request's bytes are in `input`, when it has no body (its body step follows at once, so they
    /// are still there when it is answered): what a standing answer is kept for.
    var pendingBytes: Range<Int>?
    /// The last answer that holds for a byte-identical request (`StandingAnswer`).
    var standing: StandingAnswer?
    /// A request whose answer comes later (`HTTPReply.later`): which one (`serial`), since when, and how it is
    /// answered. Only an answer for this serial counts.
    var owed: (serial: UInt64, since: Duration, headOnly: Bool, closeAfter: Bool, keepAliveAsked: Bool)?
    var serial: UInt64 = 0
    /// Bytes that did not fit in the socket's buffer, sent as it drains (`EPOLLOUT`).
    var output: [UInt8] = []
    /// `output` ends with an answer (not only an interim `100 Continue`): when it is out, the request is over.
    var answerInOutput = false
    /// When the last byte of `output` went out, for the idle limit on a peer that does not read.
    var lastProgress: Duration = .zero
    /// The connection ends after the answer in flight.
    var closeAfter = false
    /// Its last answer is out and the write side shut: what still comes is read and dropped until the peer closes or
    /// `lingerUntil` passes, so that the peer reads the answer instead of a reset.
    var lingerUntil: Duration?
    /// The epoll events registered for it.
    var interest: UInt32 = 0
    /// Still the loop's: false once closed, so work that was under way for it stops (its table entry is gone).
    var isOpen = true

    init(
        id: UInt, descriptor: Int32, peer: HTTPRequest.Peer, local: IPAddress?, credentials: HTTPRequest.Credentials?,
        refusal: HTTPResponse?, limits: HTTPRequestParser.Limits
    ) {
        self.id = id
        self.descriptor = descriptor
        self.peer = peer
        self.local = local
        self.credentials = credentials
        self.refusal = refusal
        parser = HTTPRequestParser(limits: limits)
    }

    /// Whether it is waiting on its answer (owed, or still being sent) or closing: nothing more is read for it.
    var isBusy: Bool { owed != nil || !output.isEmpty || lingerUntil != nil }

    /// Forgets the bytes the parser has taken.
    func compactInput() {
        if cursor == input.count {
            input.removeAll(keepingCapacity: input.capacity <= 4_096)
        } else if cursor > 0 {
            input.removeFirst(cursor)
        }
        cursor = 0
    }

    /// The request as the handlers see it, from its head (the body joins it at the end).
    func request(_ head: HTTPRequestParser.Head) -> HTTPRequest {
        HTTPRequest(
            method: head.method, path: head.path, query: head.query, headers: head.headers, body: [], peer: peer,
            localAddress: local, credentials: credentials)
    }
}
