import LiveActivity

/// What a router did: the answer, and what the shell must do about it.
package struct RouteResult: Sendable {
    package var response: HTTPResponse
    /// Set when the access policy refused the request (the shell logs it, rate-limited).
    package var denial: AccessPolicy.Denial?
    /// Set when the store changed: the shell persists as `durability` says and feeds the Wake coalescer.
    package var change: TaskChange?

    package init(response: HTTPResponse, denial: AccessPolicy.Denial? = nil, change: TaskChange? = nil) {
        self.response = response
        self.denial = denial
        self.change = change
    }
}
