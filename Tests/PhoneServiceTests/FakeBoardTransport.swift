import Foundation
import PhoneCore
import PhoneTestSupport

@testable import PhoneService

/// The fake board as a transport: answers at once on the caller's thread (the client's mailbox
/// queues the answer), or holds requests until `releaseHeld()` (a fetch in flight).
final class FakeBoardTransport: BoardTransport, @unchecked Sendable {  // guarded by `lock`
    let board: FakeBoard
    private let lock = NSLock()
    private var holding = false
    private var held: [(BoardRequest, @Sendable (BoardResponse) -> Void)] = []

    init(board: FakeBoard = FakeBoard()) {
        self.board = board
    }

    var heldCount: Int { lock.withLock { held.count } }

    func hold() { lock.withLock { holding = true } }

    func send(_ request: BoardRequest, completion: @escaping @Sendable (BoardResponse) -> Void) {
        let response: BoardResponse? = lock.withLock {
            if holding {
                held.append((request, completion))
                return nil
            }
            return board.answer(request)
        }
        if let response { completion(response) }
    }

    /// Stops holding and answers what was held (and, at once, whatever follows).
    func releaseHeld() {
        let pending = lock.withLock {
            holding = false
            defer { held.removeAll() }
            return held
        }
        for (request, completion) in pending {
            let response = lock.withLock { board.answer(request) }
            completion(response)
        }
    }
}
