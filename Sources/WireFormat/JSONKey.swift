/// Any object member name, for objects whose members are not known in advance (request bodies
/// read member by member, answers assembled from named parts).
package struct JSONKey: CodingKey, Sendable, Hashable {
    package var stringValue: String
    package var intValue: Int? { nil }

    package init(stringValue: String) {
        self.stringValue = stringValue
    }

    package init?(intValue: Int) {
        nil
    }

    /// The same name as `key`, from one of the fixed key sets.
    package init(_ key: some CodingKey) {
        self.stringValue = key.stringValue
    }
}
