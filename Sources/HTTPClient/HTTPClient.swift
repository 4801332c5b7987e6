import Synchronization

/// A synchronous HTTP/1.1 client on libcurl for loopback, the USB link and Unix sockets. Never uses a proxy,
/// never follows redirects, never raises signals, and caps the response body.
///
/// One libcurl easy handle per instance, created on first use and kept: libcurl keeps the connection open
/// between requests (keep-alive), which the phone's repeated fetches want. A mutex guards the handle, so
/// concurrent `perform` calls on one instance run one after another; use one instance per concurrent caller.
package final class HTTPClient: Sendable {
    /// Plenty for a 4 KiB snapshot, small enough that a confused peer cannot balloon memory. A caller that reads a
    /// larger answer says so (aidenctl: a full task list, a little over 1 MiB).
    package static let defaultMaxResponseBytes = 1 << 20

    package let maxResponseBytes: Int
    private let handle = Mutex<EasyHandle?>(nil)

    package init(maxResponseBytes: Int = HTTPClient.defaultMaxResponseBytes) {
        self.maxResponseBytes = max(0, maxResponseBytes)
    }

    /// Sends the request and waits for the whole response (or the request's timeout).
    package func perform(_ request: HTTPClientRequest) throws(HTTPClientError) -> HTTPClientResponse {
        try CurlGlobal.ensureInitialized()
        let limit = maxResponseBytes
        return try handle.withLock { slot throws(HTTPClientError) -> HTTPClientResponse in
            let easy: EasyHandle
            if let existing = slot {
                easy = existing
            } else {
                easy = try EasyHandle.make()
                slot = easy
            }
            return try easy.perform(request, maxResponseBytes: limit)
        }
    }
}
