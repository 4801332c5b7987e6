import FoundationEssentials
import NetworkAddress

/// The part of the board's `GET /api/bluetooth/status` answer the phone host uses: the board's Wake
/// transport and its adapter's Bluetooth address (so a bond can be looked up in BlueZ for exactly that
/// board), and what the board says stands in the way. Read as hostile: an address that is not a
/// `BluetoothAddress` is no address, the problem text loses control and format characters and is cut.
package struct BoardBluetoothAnswer: Sendable, Equatable {
    /// `bluez` or `loopback` (or a name a newer board sent), nil when absent.
    package var transport: String?
    /// Upper case, six colon-separated hex pairs; nil when the board has none (no adapter) or sent junk.
    package var address: String?
    package var problem: String?

    package init(transport: String?, address: String?, problem: String?) {
        self.transport = transport
        self.address = address
        self.problem = problem
    }

    /// nil when the body is not an `ok` answer.
    package init?(body: [UInt8]) {
        guard let answer = try? JSONDecoder().decode(Body.self, from: Data(body)), answer.status == "ok" else {
            return nil
        }
        transport = answer.transport.map { BoardText.printable($0, limit: 32) }
        address = answer.address.flatMap { BluetoothAddress($0)?.description }
        problem = answer.problem.map { BoardText.printable($0) }
    }

    private struct Body: Decodable {
        var status: String?
        var transport: String?
        var address: String?
        var problem: String?

        /// A member of the wrong type reads as absent, like everything else the phone reads from the board.
        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            status = try? container.decodeIfPresent(String.self, forKey: .status)
            transport = try? container.decodeIfPresent(String.self, forKey: .transport)
            address = try? container.decodeIfPresent(String.self, forKey: .address)
            problem = try? container.decodeIfPresent(String.self, forKey: .problem)
        }

        enum CodingKeys: String, CodingKey {
            case status, transport, address, problem
        }
    }
}
