import HTTPClientCore
import Synchronization

/// A synchronous HTTP/1.1 client for loopback, the USB link and Unix sockets, of the project's own: it resolves no
/// names, never uses a proxy, never follows redirects, never raises signals, and caps the response body. It links
/// no library: libcurl, which it replaces, loaded 29 (two TLS stacks among them) into every process that speaks
/// plain HTTP to a board on a cable, and their pages stayed resident in the phone.
///
/// The connection stays open between requests (keep-alive), which the phone's repeated fetches want. A
/// connection the server has closed in the meantime is noticed before the request goes out, and a request whose
/// reused connection ends before any answer is sent once more on a new one. A mutex guards the connection, so
/// concurrent `perform` calls on one instance run one after another; use one instance per concurrent caller.
package final class HTTPClient: Sendable {
    /// Plenty for a 4 KiB snapshot, small enough that a confused peer cannot balloon memory. A caller that reads a
    /// larger answer says so (aidenctl: a full task list, a little over 1 MiB).
    package static let defaultMaxResponseBytes = 1 << 20

    package let maxResponseBytes: Int
    private let connection = Mutex<ClientConnection?>(nil)

    package init(maxResponseBytes: Int = HTTPClient.defaultMaxResponseBytes) {
        self.maxResponseBytes = max(0, maxResponseBytes)
    }

    /// Sends the request and waits for the whole response (or the request's timeout).
    package func perform(_ request: HTTPClientRequest) throws(HTTPClientError) -> HTTPClientResponse {
        let plan = try RequestPlan(request)
        let start = ContinuousClock.now
        let deadline = start + .milliseconds(request.timeout.totalMilliseconds)
        let connectBy = min(deadline, start + .milliseconds(request.timeout.connectMilliseconds))
        let limit = maxResponseBytes
        return try connection.withLock { slot throws(HTTPClientError) -> HTTPClientResponse in
            if let kept = slot, kept.key == ClientConnection.Key(plan), kept.isIdle {
                slot = nil  // back only when the answer leaves it reusable
                if case .answered(let response) = try Self.exchange(
                    plan, on: kept, limit: limit, by: deadline, keep: &slot)
                {
                    return response
                }
                // The server closed the kept connection as the request went out: once more, on a new one.
            }
            slot = nil
            let fresh = try ClientConnection.open(plan, connectBy: connectBy)
            switch try Self.exchange(plan, on: fresh, limit: limit, by: deadline, keep: &slot) {
            case .answered(let response): return response
            case .lostBeforeAnswer(let error): throw error
            }
        }
    }

    private enum Outcome {
        case answered(HTTPClientResponse)
        /// The connection failed or ended before any byte of an answer. On a kept connection the request is sent
        /// once more, as libcurl did: the server most often closed the idle connection as the request came, but it
        /// may have read it, so a request that must not take effect twice carries its own key (aidenctl's
        /// `Idempotency-Key`, the phone's `answer_id`).
        case lostBeforeAnswer(HTTPClientError)
    }

    /// One request and its answer on `connection`; the connection goes into `keep` when it may carry the next.
    private static func exchange(
        _ plan: RequestPlan, on connection: ClientConnection, limit: Int, by deadline: ContinuousClock.Instant,
        keep: inout ClientConnection?
    ) throws(HTTPClientError) -> Outcome {
        do throws(HTTPClientError) {
            try connection.send(plan.wire, by: deadline)
        } catch .connectionLost(let detail) {
            return .lostBeforeAnswer(.connectionLost(detail))
        }
        var parser = HTTPResponseParser(limit: limit, expectsBody: plan.expectsBody)
        while true {
            let bytes: ArraySlice<UInt8>
            do throws(HTTPClientError) {
                bytes = try connection.receive(by: deadline)
            } catch .connectionLost(let detail) where !parser.hasStarted {
                return .lostBeforeAnswer(.connectionLost(detail))
            }
            if bytes.isEmpty {
                guard parser.hasStarted else {
                    return .lostBeforeAnswer(.connectionLost("the server closed the connection without answering"))
                }
                return .answered(try parser.finish())
            }
            if case .complete(let response, let reusable) = try parser.consume(bytes) {
                if reusable { keep = connection }
                return .answered(response)
            }
        }
    }
}
