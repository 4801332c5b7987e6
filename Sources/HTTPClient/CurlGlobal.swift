internal import CCurl

/// `curl_global_init` must run once per process before any handle exists. A Swift static `let` is initialised
/// exactly once, thread-safely, on first access: that is the once-only guard.
enum CurlGlobal {
    private static let initResult: UInt32 = aiden_curl_global_init_default().rawValue

    static func ensureInitialized() throws(HTTPClientError) {
        let code = initResult
        guard code == CURLE_OK.rawValue else {
            throw .other(code: Int(code), message: "curl_global_init failed")
        }
    }
}
