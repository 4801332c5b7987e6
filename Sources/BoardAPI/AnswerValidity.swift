import Synchronization

/// How long an answer holds for the very same request: while the publication it was read from is still the board's
/// last. The board ends it when it publishes the next (`end()`), from the writer; the servers read it from their own
/// threads. An answer that carries one (`HTTPResponse.validity`) may be sent again, without asking the handler, to a
/// byte-identical request on the same connection until then: the phone's repeated read of `/current` costs the
/// board a comparison and a `send`.
package final class AnswerValidity: Sendable {
    private let ended = Atomic<Bool>(false)

    package init() {}

    /// The publication is still the last one.
    package var holds: Bool { !ended.load(ordering: .acquiring) }

    /// The next publication replaced it: no answer read from it is sent again.
    package func end() { ended.store(true, ordering: .releasing) }
}
