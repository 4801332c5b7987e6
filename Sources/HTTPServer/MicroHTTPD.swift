internal import CMicroHTTPD

/// Facts about the linked libmicrohttpd, for `/status` and `doctor`.
package enum MicroHTTPD {
    /// The library's own version string, e.g. "0.9.75".
    package static var version: String {
        guard let cString = MHD_get_version() else { return "unknown" }
        return String(cString: cString)
    }

    /// Whether this build of libmicrohttpd can listen on IPv6 (the `[::]:8080` listen form needs it).
    package static var supportsIPv6: Bool {
        MHD_is_feature_supported(.feature_IPv6) == .YES
    }

    /// Whether epoll is available: the server runs one internal epoll thread.
    package static var supportsEpoll: Bool {
        MHD_is_feature_supported(.FEATURE_EPOLL) == .YES
    }

    /// Takes a connection out of the daemon's event loop until `resume`: its request stays unanswered and costs the
    /// thread nothing. Only from the access handler, on a daemon started with `MHD_ALLOW_SUSPEND_RESUME`.
    static func suspend(_ connection: OpaquePointer) { MHD_suspend_connection(connection) }

    /// Puts a suspended connection back: the daemon's thread calls the access handler for it again, soon (MHD's
    /// inter-thread channel wakes it). From any thread, only after `suspend`, and before the daemon stops.
    static func resume(_ connection: OpaquePointer) { MHD_resume_connection(connection) }
}
