/// Persisted with the store. Decoding refuses a ring that breaks its invariants.
extension TransitionLog: Codable {
    enum CodingKeys: String, CodingKey {
        case generation
        case capacity
        case lastID = "last_id"
        case events
    }

    package init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        generation = try container.decode(String.self, forKey: .generation)
        capacity = max(1, try container.decodeIfPresent(Int.self, forKey: .capacity) ?? Self.defaultCapacity)
        lastID = try container.decode(UInt64.self, forKey: .lastID)
        events = try container.decode([TransitionEvent].self, forKey: .events)
        if let problem = consistencyProblems().first {
            throw DecodingError.dataCorruptedError(
                forKey: .events, in: container, debugDescription: "inconsistent transition ring: \(problem)")
        }
    }

    package func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(generation, forKey: .generation)
        try container.encode(capacity, forKey: .capacity)
        try container.encode(lastID, forKey: .lastID)
        try container.encode(events, forKey: .events)
    }
}
