internal import CCurl

/// Facts about the linked libcurl.
package enum Curl {
    /// The libcurl version, e.g. "7.88.1".
    package static var version: String {
        guard let info = aiden_curl_version_info(), let v = info.pointee.version else { return "unknown" }
        return String(cString: v)
    }

    /// Whether libcurl can talk HTTP over a Unix socket (`CURLOPT_UNIX_SOCKET_PATH`), which aidenctl needs.
    package static var supportsUnixSockets: Bool {
        guard let info = aiden_curl_version_info() else { return false }
        return info.pointee.features & CURL_VERSION_UNIX_SOCKETS != 0
    }
}
