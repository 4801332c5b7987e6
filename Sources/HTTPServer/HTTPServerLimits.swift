/// Resource limits that keep a small board serving while clients misbehave.
package struct HTTPServerLimits: Sendable, Equatable {
    /// Request bodies above this get 413 (CONTRACT.md §3: 16 KiB).
    package var maxBodyBytes: Int = 16 * 1024
    /// Connections open at once, per listener.
    package var connectionLimit: Int = 64
    /// Connections open at once from one peer address, so one client cannot take every slot.
    package var perPeerConnectionLimit: Int = 16
    /// A connection idle (or trickling) this long is closed.
    package var idleTimeoutSeconds: Int = 10
    /// libmicrohttpd's per-connection memory pool, which holds the request line and headers being
    /// read (the body is streamed to us in pieces). MHD clears the pool for every request on a
    /// keep-alive connection, so its size is a per-request cost; a request whose headers do not
    /// fit is answered 431.
    package var connectionMemoryBytes: Int = 32 * 1024

    package init(
        maxBodyBytes: Int = 16 * 1024, connectionLimit: Int = 64, perPeerConnectionLimit: Int = 16,
        idleTimeoutSeconds: Int = 10, connectionMemoryBytes: Int = 32 * 1024
    ) {
        self.maxBodyBytes = maxBodyBytes
        self.connectionLimit = connectionLimit
        self.perPeerConnectionLimit = perPeerConnectionLimit
        self.idleTimeoutSeconds = idleTimeoutSeconds
        self.connectionMemoryBytes = connectionMemoryBytes
    }
}
