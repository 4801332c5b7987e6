import BoardAPI

/// What the C callbacks of one daemon need, passed to them as the context pointer.
final class ServerContext: Sendable {
    let handler: HTTPServer.Handler
    let limits: HTTPServerLimits
    let isUnixSocket: Bool

    init(handler: @escaping HTTPServer.Handler, limits: HTTPServerLimits, isUnixSocket: Bool) {
        self.handler = handler
        self.limits = limits
        self.isUnixSocket = isUnixSocket
    }
}

/// The state of one request between MHD's calls to the access handler (headers, body chunks, end).
final class RequestState {
    var body: [UInt8] = []
    var bodyTooLarge = false
    var responded = false
}
