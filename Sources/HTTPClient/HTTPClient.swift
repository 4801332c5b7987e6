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

    /// Initialises libcurl and this client's handle now rather than on the first request. libcurl's one-time
    /// initialisation (OpenSSL's among it) runs megabytes of code once; a daemon does it during start-up, so
    /// those pages leave with start-up's when it trims its resident set. A failure is thrown. libcurl's
    /// initialisation is not tried again (every request throws its failure too); making the handle is tried again
    /// by the next request.
    package func prepare() throws(HTTPClientError) {
        try CurlGlobal.ensureInitialized()
        _ = try handle.withLock { slot throws(HTTPClientError) -> EasyHandle in try Self.easyHandle(in: &slot) }
    }

    /// Sends the request and waits for the whole response (or the request's timeout).
    package func perform(_ request: HTTPClientRequest) throws(HTTPClientError) -> HTTPClientResponse {
        try CurlGlobal.ensureInitialized()
        let limit = maxResponseBytes
        return try handle.withLock { slot throws(HTTPClientError) -> HTTPClientResponse in
            try Self.easyHandle(in: &slot).perform(request, maxResponseBytes: limit)
        }
    }

    private static func easyHandle(in slot: inout EasyHandle?) throws(HTTPClientError) -> EasyHandle {
        if let existing = slot { return existing }
        let easy = try EasyHandle.make()
        slot = easy
        return easy
    }
}
