import FoundationEssentials

/// The part of the board's `GET /status` answer the phone uses: `instance_id`, random per board
/// start, which names the connection session when USB presence is not watched.
package enum BoardStatusAnswer {
    /// The instance id, or nil when the body is not a status answer or has none (an older board).
    package static func instanceID(from body: [UInt8]) -> String? {
        guard let status = try? JSONDecoder().decode(StatusBody.self, from: Data(body)),
              let id = status.instanceID, !id.isEmpty, id.utf8.count <= 64,
              id.unicodeScalars.allSatisfy({ $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0)) })
        else { return nil }
        return id
    }

    private struct StatusBody: Decodable {
        var instanceID: String?

        enum CodingKeys: String, CodingKey {
            case instanceID = "instance_id"
        }
    }
}
