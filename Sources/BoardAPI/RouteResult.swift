import LiveActivity

/// What a router did: the answer, and what the shell must do about it.
package struct RouteResult: Sendable {
    package var response: HTTPResponse
    /// Set when the access policy refused the request (the shell logs it, rate-limited).
    package var denial: AccessPolicy.Denial?
    /// Set when the store changed: the shell persists as `durability` says and feeds the Wake coalescer.
    package var change: TaskChange?
    /// Set when the request asks the shell to act on the world (e.g. open a Bluetooth pairing window).
    package var effect: RouteEffect?

    package init(
        response: HTTPResponse, denial: AccessPolicy.Denial? = nil, change: TaskChange? = nil,
        effect: RouteEffect? = nil
    ) {
        self.response = response
        self.denial = denial
        self.change = change
        self.effect = effect
    }
}
