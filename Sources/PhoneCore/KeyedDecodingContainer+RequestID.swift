import WireFormat

extension KeyedDecodingContainer {
    /// A request id as the board's own rule allows it (`IdentifierRule`); any other value is a decoding
    /// error naming the key, without the value (it is the board's, and hostile).
    func decodeRequestID(forKey key: Key) throws -> String {
        let requestID = try decode(String.self, forKey: key)
        guard IdentifierRule.isValid(requestID) else {
            throw DecodingError.dataCorruptedError(
                forKey: key, in: self, debugDescription: IdentifierRule.expectation())
        }
        return requestID
    }
}
