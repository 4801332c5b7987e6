import FoundationEssentials

/// The part of the board's `GET /status` answer the phone uses: `instance_id`, random per board
/// start, which names the connection session when USB presence is not watched.
package enum BoardStatusAnswer: Sendable, Equatable {
    case instance(String)
    /// A status answer without an instance id (an older board).
    case noInstance
    /// Not a status answer at all.
    case unreadable

    package init(body: [UInt8]) {
        guard let status = try? JSONDecoder().decode(StatusBody.self, from: Data(body)), status.status == "ok" else {
            self = .unreadable
            return
        }
        guard let id = status.instanceID, !id.isEmpty, id.utf8.count <= 64,
            id.unicodeScalars.allSatisfy({
                ("a"..."z").contains($0) || ("A"..."Z").contains($0)
                    || ("0"..."9").contains($0) || $0 == "-" || $0 == "_"
            })
        else {
            self = .noInstance
            return
        }
        self = .instance(id)
    }

    private struct StatusBody: Decodable {
        var status: String?
        var instanceID: String?

        enum CodingKeys: String, CodingKey {
            case status
            case instanceID = "instance_id"
        }
    }
}
