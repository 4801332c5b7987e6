import DBusModel

/// Bonding over the USB cable (`Settings.bondsOverCable`). The cable is the trust anchor: only the host at
/// the other end of the board's USB link can ask the board to open its pairing window, and the board names
/// its own Bluetooth address over that link, so the phone pairs with exactly the board it is plugged into,
/// never with whatever else advertises the Wake service.
///
/// A board without a bond is paired before the link is made: the window is opened over the cable, the
/// phone's agent is registered (once per bluetoothd, never as the default agent), `Device1.Pair`, then
/// `Trusted`; the board is remembered, and the link goes on as for any bonded board. A board that refuses
/// the bond this host still holds (it was reset) has this host's stale half removed and is paired again.
/// Every failure is reported (`pairingFailed`) and waits `bondRetry`, or until the cable comes back; a bond
/// that pairs but still gives no working link is retried at most `bondAttempts` times per wait.
extension CentralLifecycle {
    // MARK: Events

    /// The board on the cable named its Bluetooth address (asked when the USB link came up). Without a
    /// configured address, that board is the one to follow from now on, whatever was remembered.
    package mutating func cableNamedBoard(_ address: String, at now: Duration) -> [Action] {
        guard let named = Settings.normalized(address) else { return [] }
        if let configured = settings.boardAddress {
            guard configured != named else { return cableArrived(at: now) }
            lastProblem =
                "the board on the USB cable is \(named), but [wake] address names \(configured): following \(configured)"
            return [.problem(lastProblem ?? "")]
        }
        guard named != cableAddress else { return cableArrived(at: now) }
        cableAddress = named
        if let active = activeDevice, devices[active]?.bluetoothAddress?.description == named { return [] }
        // Bonding checks the address the window answer names; a search finds the new board by itself.
        switch phase {
        case .bonding, .discovering, .searching(started: false):
            return []
        case .searching(started: true):
            return connectToSeenBoard(at: now)
        case .idle:
            return advance(at: now)
        case .connecting(let device), .resolving(let device, _), .subscribing(let device, _),
            .reading(let device, _), .subscribed(let device, _):
            phase = .idle
            failures = 0
            return [.disconnect(device)] + advance(at: now)
        case .waiting:
            phase = .idle
            failures = 0
            bondsTried = 0
            return advance(at: now)
        }
    }

    /// The USB link to the board came up: a bond that waits for the cable is tried now.
    package mutating func cableArrived(at now: Duration) -> [Action] {
        guard settings.bondsOverCable, case .waiting(_, bondProblem: true) = phase else { return [] }
        phase = .idle
        failures = 0
        bondsTried = 0
        return advance(at: now)
    }

    /// The board opened its pairing window and named its address over the cable.
    package mutating func windowOpened(boardAddress: String, link: UInt64, at now: Duration) -> [Action] {
        guard link == self.link, case .bonding(let device, .openingWindow) = phase else { return [] }
        guard let named = Settings.normalized(boardAddress) else {
            return bondFailed("the board named no Bluetooth address over the cable", at: now)
        }
        if let configured = settings.boardAddress, configured != named {
            return bondFailed(
                "the board on the USB cable is \(named), but [wake] address names \(configured)", at: now)
        }
        cableAddress = named
        guard devices[device]?.bluetoothAddress?.description == named else {
            // Something else advertises the Wake service: follow the board the cable named instead.
            let stranger = address(of: device)
            phase = .idle
            forgetSightings()
            return [.problem("\(stranger) advertises the Wake service but is not the board on the cable (\(named))")]
                + advance(at: now)
        }
        if agentRound == round { return startPair(device, try: 1, at: now) }
        phase = .bonding(device, .registeringAgent)
        return [.registerAgent(round: round)]
    }

    /// The cable did not open the window (no USB link, the board refused, no Bluetooth on the board). Asked
    /// whether a bond is lost, the board gave no word: the bond stays, and the link is tried again.
    ///
    /// A board cooling down between windows says for how long (`retryAfter`): the next try waits that out
    /// instead of being refused again, but never longer than `longestRetryAfter`, so a board that names an
    /// absurd time cannot silence bonding (plugging the cable in again still tries at once).
    package mutating func windowFailed(
        _ why: String, retryAfter: Duration? = nil, link: UInt64, at now: Duration
    ) -> [Action] {
        guard link == self.link, case .bonding(_, let step) = phase else { return [] }
        switch step {
        case .openingWindow:
            let asked = min(retryAfter ?? .zero, Self.longestRetryAfter)
            return bondFailed(
                "the board's pairing window could not be opened over USB: \(why)", at: now,
                wait: max(settings.bondRetry, asked))
        case .askingBoard(let suspicion):
            return fail(
                "\(suspicion); the board could not be asked over USB (\(why)), so this host keeps its bond",
                bondLost: false, at: now)
        default:
            return []
        }
    }

    /// The board said over the cable that it no longer holds this host's bond (and opened its window): this
    /// host removes its stale half, then pairs again.
    package mutating func boardForgotBond(link: UInt64, at now: Duration) -> [Action] {
        guard link == self.link, case .bonding(let device, .askingBoard) = phase else { return [] }
        phase = .bonding(device, .removingStaleBond)
        return [
            .problem("the board no longer knows this host's bond: pairing again over the cable"),
            .removeBond(device, link: link),
        ]
    }

    /// The board said over the cable that it still holds this host's bond: the failures were not a lost bond
    /// (a busy or jammed radio, someone in range provoking them), so the bond stays and the link is tried again
    /// after the usual backoff.
    package mutating func boardKeptBond(link: UInt64, at now: Duration) -> [Action] {
        guard link == self.link, case .bonding(_, .askingBoard(let suspicion)) = phase else { return [] }
        return fail("\(suspicion); the board still holds this host's bond, so it is kept", bondLost: false, at: now)
    }

    package mutating func agentRegistered(round: UInt64, at now: Duration) -> [Action] {
        guard round == self.round, case .bonding(let device, .registeringAgent) = phase else { return [] }
        agentRound = round
        return startPair(device, try: 1, at: now)
    }

    package mutating func agentFailed(round: UInt64, error: DBusError, at now: Duration) -> [Action] {
        guard round == self.round, case .bonding(_, .registeringAgent) = phase else { return [] }
        if error.kind == .bluez(.alreadyExists) { return agentRegistered(round: round, at: now) }
        return bondFailed("registering the phone's pairing agent failed: \(error)", at: now)
    }

    package mutating func pairSucceeded(link: UInt64, attempt: Int, at now: Duration) -> [Action] {
        guard link == self.link, case .bonding(let device, .pairing(attempt, _)) = phase else { return [] }
        devices[device]?.paired = true
        phase = .bonding(device, .trusting)
        return [.trust(device, link: link)]
    }

    /// A failed `Pair` is tried again inside the same window (`pairTries` in all, `pairPause` apart): the
    /// board may make its adapter pairable a moment after it answered, and a busy radio may miss the link.
    /// One this central stopped waiting for is cancelled first, or bluetoothd would still be pairing.
    package mutating func pairFailed(link: UInt64, attempt: Int, error: DBusError, at now: Duration) -> [Action] {
        guard link == self.link, case .bonding(let device, .pairing(attempt, _)) = phase else { return [] }
        if error.kind == .bluez(.alreadyExists) { return pairSucceeded(link: link, attempt: attempt, at: now) }
        if error.kind == .timeout { return pairGivenUp(device, tries: attempt, why: "\(error)", at: now) }
        return pairTryFailed(device, tries: attempt, why: "\(error)", cancel: [], at: now)
    }

    /// A `Pair` that stalled (no answer, and no link, for `pairTimeout`): cancelled, so bluetoothd stops pairing,
    /// and tried again after the pause like a failed one; its late answer is ignored.
    mutating func pairGivenUp(_ device: DBusObjectPath, tries: Int, why: String, at now: Duration) -> [Action] {
        pairTryFailed(device, tries: tries, why: why, cancel: [.cancelPairing(device)], at: now)
    }

    private mutating func pairTryFailed(
        _ device: DBusObjectPath, tries: Int, why: String, cancel: [Action], at now: Duration
    ) -> [Action] {
        guard tries < settings.pairTries else {
            return cancel + bondFailed("pairing refused: \(why)", at: now)
        }
        phase = .bonding(device, .pausing(tries: tries, until: now + settings.pairPause))
        return cancel + [.problem("pairing try \(tries) of \(settings.pairTries) failed: \(why)")]
    }

    mutating func startPair(_ device: DBusObjectPath, try attempt: Int, at now: Duration) -> [Action] {
        phase = .bonding(device, .pairing(tries: attempt, until: now + settings.pairTimeout))
        return [.pair(device, link: link, attempt: attempt)]
    }

    /// `Trusted` is set (or could not be: the bond stands all the same, bluetoothd only reconnects an
    /// untrusted device less eagerly). The board is remembered and the link goes on.
    package mutating func trustFinished(link: UInt64, error: DBusError?, at now: Duration) -> [Action] {
        guard link == self.link, case .bonding(let device, .trusting) = phase else { return [] }
        var actions: [Action] = []
        if let error { actions.append(.problem("marking the board trusted failed: \(error)")) }
        let bonded = devices[device]?.bluetoothAddress?.description ?? cableAddress ?? address(of: device)
        actions.append(.bonded(address: bonded))
        return actions + linkBonded(device, connected: devices[device]?.connected ?? false, at: now)
    }

    /// This host's stale half of the bond is gone (the device object with it): search, and pair anew.
    package mutating func bondRemoved(link: UInt64, error: DBusError?, at now: Duration) -> [Action] {
        guard link == self.link, case .bonding(let device, .removingStaleBond) = phase else { return [] }
        devices[device] = nil
        phase = .idle
        var actions: [Action] = []
        if let error, error.kind != .bluez(.doesNotExist) {
            actions.append(.problem("removing the stale bond failed: \(error)"))
        }
        return actions + advance(at: now)
    }

    /// Whether the agent may confirm a pairing of `device` asked by `sender`: bluetoothd's current owner
    /// asking about the board this central is pairing right now.
    package func isPairing(_ device: DBusObjectPath?, askedBy sender: String?) -> Bool {
        guard let sender, sender == bluezOwnerName, case .bonding(let bonding, .pairing) = phase else { return false }
        return device == bonding
    }

    // MARK: Internals

    var isBonding: Bool {
        if case .bonding = phase { return true }
        return false
    }

    /// Pairs `device` (a board without a bond) over the cable before the link is made.
    mutating func startBond(_ device: DBusObjectPath, at now: Duration) -> [Action] {
        bondsTried += 1
        phase = .bonding(device, .openingWindow)
        return [.openPairingWindow(link: link, hostAddress: Settings.normalized(adapter.address))]
            + report(.pairing(address: address(of: device)))
    }

    /// The links fail as a lost bond makes them: ask the board over the cable whether it still holds this
    /// host's half, and remove this host's half only when it says it does not (`boardForgotBond`); then pair
    /// again. Unless bonds in a row already gave no working link (then wait as without the cable).
    mutating func removeStaleBond(_ device: DBusObjectPath, why: String, at now: Duration) -> [Action] {
        guard bondsTried < settings.bondAttempts else {
            // The long wait starts a new period: after it, a few bonds over the cable again.
            bondsTried = 0
            return waitForBond(
                "\(why) (after \(bondsTried) bonds over the cable in a row)", retryIn: settings.bondLostRetry,
                at: now
            ) { .bondLost(address: $0, retryIn: $1) }
        }
        lastProblem = why
        phase = .bonding(device, .askingBoard(why: why))
        return [
            .problem("\(why): asking the board over the cable whether it still knows this host's bond"),
            .confirmBondLost(link: link, hostAddress: Settings.normalized(adapter.address)),
        ] + report(.pairing(address: address(of: device)))
    }

    mutating func deviceRemovedWhileBonding(at now: Duration) -> [Action] {
        // Removing the stale bond takes the device object with it: expected, the answer follows.
        if case .bonding(_, .removingStaleBond) = phase { return [] }
        return bondFailed("the board's device object went away while pairing", at: now)
    }

    /// An automatic bond failed: say why, and wait `wait` (`bondRetry` unless the board named longer) or for
    /// the cable.
    mutating func bondFailed(_ why: String, at now: Duration, wait: Duration? = nil) -> [Action] {
        let wait = wait ?? settings.bondRetry
        lastProblem = why
        forgetSightings()
        phase = .waiting(until: now + wait, bondProblem: true)
        let who = cableAddress ?? boardAddress ?? "the board"
        return [.problem(why)] + report(.pairingFailed(address: who, reason: why, retryIn: wait))
    }

    /// The longest cool-down a board is believed: its cool-down lasts as long as its last window was open,
    /// and a window is never longer than 300 s (docs/http-api.md).
    package static let longestRetryAfter: Duration = .seconds(300)
}
