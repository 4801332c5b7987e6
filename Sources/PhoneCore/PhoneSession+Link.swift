import WireFormat

/// Links and app state: the Wake source, USB presence, the `connected` alert, `POST app-state`.
extension PhoneSession {
    mutating func wakeLinkChanged(
        _ state: LinkState.Wake, detail: String?, at now: Duration, _ effects: inout [Effect]
    ) {
        let previous = link.wake
        let detail = state == .connected ? nil : detail
        guard state != previous || detail != link.wakeDetail else { return }
        link.wake = state
        link.wakeDetail = detail
        guard started else { return }
        effects.append(.emit(.connection(link)))
        showCard(&effects)
        // Wakes may have been missed while the source was away.
        if state == .connected && previous != .connected { perform(scheduler.handle(.connected, at: now), &effects) }
    }

    /// USB presence is watched from now on, or no longer: when it is not, the session forgets what the watcher
    /// reported, and the connection is named after the board instance again.
    mutating func usbWatchChanged(_ watched: Bool, _ effects: inout [Effect]) {
        guard watched != (link.usb != .unmonitored) else { return }
        let wasUp = usb.isUp
        usb = USBSessionTracker()
        link.usb = watched ? .down : .unmonitored
        if wasUp { link.connectionID = boardConnectionID.flatMap { $0.isEmpty ? nil : $0 } }
        guard started else { return }
        effects.append(.emit(.connection(link)))
        showCard(&effects)
    }

    mutating func usbEvent(_ event: USBEvent, at now: Duration, _ effects: inout [Effect]) {
        guard link.usb != .unmonitored else { return }
        let changes: [USBSessionTracker.Change]
        switch event {
        case let .arrived(device): changes = usb.arrived(device)
        case let .departed(device): changes = usb.departed(device)
        }
        for change in changes {
            switch change {
            case let .linkUp(id):
                link.usb = .up
                link.connectionID = id
                effects.append(.log(.notice, "USB link up (\(id))"))
            case let .linkDown(id):
                link.usb = .down
                link.connectionID = boardConnectionID.flatMap { $0.isEmpty ? nil : $0 }
                effects.append(.log(.notice, "USB link down (\(id))"))
            }
            guard started else { continue }
            effects.append(.emit(.connection(link)))
            showCard(&effects)
            if case let .linkUp(id) = change {
                alertConnected(id, &effects)
                // A new link is the usual cure for an unreachable board: fetch now.
                perform(scheduler.handle(.linkUp, at: now), &effects)
            }
        }
    }

    /// The `connected` alert, once per connection id (the record survives restarts).
    mutating func alertConnected(_ id: String, _ effects: inout [Effect]) {
        guard !id.isEmpty, let alert = policy.usbConnected(connectionID: id) else { return }
        recordWhileWaiting?.insert(alert.key)
        effects.append(.saveRecord(recordToSave))
        effects.append(.alert(alert))
    }

    /// The way back to the task reported with the app state (`return_entry`), nil for none.
    package var returnEntry: ReturnEntry? { ReturnEntry.preferred(among: offeredEntries) }

    mutating func sendAppStateIfNeeded(_ effects: inout [Effect]) {
        guard started, appStateInFlight == nil, let state = wantedAppState else { return }
        let wanted = AppStateReport(state: state, returnEntry: returnEntry)
        guard wanted != reportedAppState else { return }
        appStateInFlight = wanted
        effects.append(.send(.appState(wanted.state, returnEntry: wanted.returnEntry, phoneID: settings.phoneID)))
    }

    mutating func appStateAnswered(_ report: AppStateReport, _ response: BoardResponse, _ effects: inout [Effect]) {
        appStateInFlight = nil
        let state = report.state
        switch response {
        case let .answered(status, _, _, _) where (200..<300).contains(status):
            reportedAppState = report
            effects.append(
                .log(
                    .info,
                    "reported app state \(state.rawValue), return entry "
                        + (report.returnEntry?.rawValue ?? "none")))
            // Another state was asked for meanwhile.
            sendAppStateIfNeeded(&effects)
        case let .answered(status, _, body, _):
            let message = BoardAnswer.current(status: status, body: body)
            let detail = if case let .failure(problem) = message { problem.description } else { "HTTP \(status)" }
            effects.append(.log(.warning, "app state \(state.rawValue) not accepted: \(detail)"))
        case let .failed(detail):
            // Retried after the next successful fetch.
            effects.append(.log(.info, "app state \(state.rawValue) not reported yet: board unreachable: \(detail)"))
        }
    }
}
