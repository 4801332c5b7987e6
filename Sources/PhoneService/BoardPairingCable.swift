import BlueZ
import PhoneCore
import Platform
import WireFormat

/// The board's pairing window over the USB cable, for `WakeCentral`'s automatic bonding: asks the board on
/// the ECM link for its Bluetooth address, then to open its pairing window. Only the host at the other end
/// of the cable may ask (the board checks); what it answers names the one device this host pairs with.
///
/// A board that was just plugged in may not answer yet (its network is still coming up on both ends), so an
/// unreachable board is asked again for a few seconds; a refusal is final for this attempt.
package final class BoardPairingCable: PairingCable {
    /// How long the window is asked for: ample for the central's three `Pair` tries (`CentralLifecycle.Settings`:
    /// each cancelled after 5 s unanswered, 2 s apart) on a busy radio; the board closes it at the first bond,
    /// so it is not left lying open.
    package static let windowSeconds = 120

    private let transport: any BoardTransport
    private let runtime: any Runtime
    private let attempts: Int
    private let pause: Duration

    /// `attempts` × `pause` bounds how long an unreachable board is waited for (10 × 1 s by default).
    package init(transport: any BoardTransport, runtime: any Runtime, attempts: Int = 10, pause: Duration = .seconds(1))
    {
        self.transport = transport
        self.runtime = runtime
        self.attempts = max(1, attempts)
        self.pause = pause
    }

    package func openPairingWindow(hostAddress: String?) async throws(PairingCableError) -> String {
        let address = try await boardAddressOrThrow()
        let request = BoardRequest.openPairingWindow(seconds: Self.windowSeconds, phoneAddress: hostAddress)
        guard try Self.opened(await ask(request, BoardPairingAnswer.windowOpened).get()) else {
            throw PairingCableError("the board answered that it keeps a bond it was not asked about")
        }
        return address
    }

    package func confirmBondLost(hostAddress: String?) async throws(PairingCableError) -> Bool {
        guard let hostAddress else {
            throw PairingCableError("this host's adapter address is not known, so the board cannot be asked")
        }
        let request = BoardRequest.openPairingWindow(
            seconds: Self.windowSeconds, phoneAddress: hostAddress, phoneBonded: true)
        return try Self.opened(await ask(request, BoardPairingAnswer.windowOpened).get())
    }

    /// true: the window is open; false: the board keeps this host's bond. The board answers the other outcomes
    /// as refusals, which arrive as failures with its own words; should one arrive as an outcome, it throws
    /// in words all the same.
    private static func opened(_ outcome: PairingOutcome) throws(PairingCableError) -> Bool {
        switch outcome {
        case .open: true
        case .bondKept: false
        case let .coolingDown(retryIn):
            throw PairingCableError("the board's pairing window is cooling down", retryAfter: retryIn)
        case let .failed(why): throw PairingCableError("the board opened no pairing window: \(why)")
        }
    }

    /// The board's Bluetooth address, or nil when the board cannot tell (not reachable, no adapter).
    package func boardAddress() async -> String? {
        try? await boardAddressOrThrow()
    }

    private func boardAddressOrThrow() async throws(PairingCableError) -> String {
        switch await ask(.bluetoothStatus, BoardPairingAnswer.boardAddress) {
        case let .success(address): return address
        case let .failure(error): throw error
        }
    }

    /// Sends `request`, again after `pause` while the board is unreachable, and reads the answer with `read`;
    /// a refusal keeps the board's `Retry-After` (a cooling-down window) for the next try's wait.
    private func ask<Answer>(
        _ request: BoardRequest, _ read: (Int, [UInt8]) -> Result<Answer, BoardProblem>
    ) async -> Result<Answer, PairingCableError> {
        var last = BoardProblem.unreachable(detail: "not asked")
        for attempt in 1...attempts {
            switch await send(request) {
            case let .answered(status, _, body, retryAfter):
                return read(status, body).mapError { PairingCableError(Self.words($0), retryAfter: retryAfter) }
            case let .failed(detail):
                last = .unreachable(detail: detail)
                if attempt < attempts { await sleep(pause) }
            }
        }
        return .failure(PairingCableError(Self.words(last)))
    }

    private func send(_ request: BoardRequest) async -> BoardResponse {
        await withCheckedContinuation { continuation in
            transport.send(request) { continuation.resume(returning: $0) }
        }
    }

    private func sleep(_ duration: Duration) async {
        await withCheckedContinuation { continuation in
            _ = runtime.schedule(at: runtime.monotonicNow() + duration) { continuation.resume() }
        }
    }

    /// The card's words: a refusal carries the board's own reason.
    static func words(_ problem: BoardProblem) -> String {
        switch problem {
        case let .forbidden(message), let .httpStatus(_, message):
            "the board refused (\(problem.statusText)): \(message ?? "no reason given")"
        case .unreachable, .malformed:
            problem.description
        }
    }
}

extension BoardProblem {
    /// `HTTP 403` and the like, for refusals.
    fileprivate var statusText: String {
        switch self {
        case .forbidden: "HTTP 403"
        case let .httpStatus(status, _): "HTTP \(status)"
        default: kind
        }
    }
}
