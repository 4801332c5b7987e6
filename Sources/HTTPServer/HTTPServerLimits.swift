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

    package init(
        maxBodyBytes: Int = 16 * 1024, connectionLimit: Int = 64, perPeerConnectionLimit: Int = 16,
        idleTimeoutSeconds: Int = 10
    ) {
        self.maxBodyBytes = maxBodyBytes
        self.connectionLimit = connectionLimit
        self.perPeerConnectionLimit = perPeerConnectionLimit
        self.idleTimeoutSeconds = idleTimeoutSeconds
    }
}
