import BoardAPI
import Dispatch
import Synchronization

extension HTTPReply {
    /// The response, as a test calling a handler directly reads it: at once, or once the work that answers later
    /// has responded. Bounded, so a reply that never comes fails the test (status 0) instead of hanging it.
    package func response(waitingUpTo seconds: Double = 30) -> HTTPResponse {
        switch self {
        case let .now(response):
            return response
        case let .later(start):
            let answer = Mutex<HTTPResponse?>(nil)
            let done = DispatchSemaphore(value: 0)
            start { response in
                answer.withLock { $0 = response }
                done.signal()
            }
            guard done.wait(timeout: .now() + .milliseconds(Int(seconds * 1000))) == .success else {
                return HTTPResponse(status: 0, body: Array("no answer within \(seconds) s".utf8))
            }
            return answer.withLock { $0 } ?? HTTPResponse(status: 0)
        }
    }

    /// Whether the response is deferred (`later`): the server would hold the connection, unread, meanwhile.
    package var isLater: Bool {
        if case .later = self { true } else { false }
    }
}
