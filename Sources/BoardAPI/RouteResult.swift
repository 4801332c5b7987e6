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
    /// Set when the request is a long-poll the board cannot answer yet: the shell holds it (`AgentWait`), and
    /// `response` is what to answer should it not (the timeout's answer, now).
    package var wait: AgentWait?

    package init(
        response: HTTPResponse, denial: AccessPolicy.Denial? = nil, change: TaskChange? = nil,
        effect: RouteEffect? = nil, wait: AgentWait? = nil
    ) {
        self.wait = wait
        self.response = response
        self.denial = denial
        self.change = change
        self.effect = effect
    }
}
