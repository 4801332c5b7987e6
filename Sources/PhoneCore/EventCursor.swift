/// Where the client is in the board's events ring: the `since` and `generation` query parameters,
/// plus the epoch the ring belonged to.
package struct EventCursor: Sendable, Equatable, Decodable {
    /// The id of the last event read (0: from the start).
    package var since: UInt64
    /// The ring generation `since` belongs to; nil before the first read.
    package var generation: String?
    /// The board epoch of that generation; nil before the first read.
    package var epoch: UInt16?

    package init(since: UInt64 = 0, generation: String? = nil, epoch: UInt16? = nil) {
        self.since = since
        self.generation = generation
        self.epoch = epoch
    }

    /// Named here so that `AlertRecord.json` writes the members under the names this decodes.
    enum CodingKeys: String, CodingKey {
        case since
        case generation
        case epoch
    }
}
