import DBusModel

/// Performing the lifecycle's actions: each is one or two bus calls with a timeout, run concurrently, whose
/// outcome goes back into the lifecycle tagged with the round it belongs to.
extension GattPeripheral {
    func perform(_ action: PeripheralLifecycle.Action) {
        logger.debug("bluez action \(action)")
        switch action {
        case .discover(let round):
            runtime.spawn { [self] in
                do throws(DBusError) {
                    let objects = try await bus.getManagedObjects(
                        destination: BlueZNames.service, timeout: configuration.callTimeout)
                    post { lifecycle, now in lifecycle.discovered(objects, round: round, at: now) }
                } catch {
                    failed(.discover, round: round, error)
                }
            }
        case .applyAdapterPolicy(let round, let pairable, let timeout):
            step(.adapterPolicy, round: round) { [self] () async throws(DBusError) in
                try await setAdapter("Discoverable", .boolean(false))
                try await setPairable(pairable, timeoutSeconds: timeout)
            }
        case .registerAgent(let round):
            step(.agent, round: round) { [self] () async throws(DBusError) in
                do throws(DBusError) {
                    _ = try await bus.call(
                        destination: BlueZNames.service, path: BlueZNames.root, interface: BlueZNames.agentManager,
                        member: "RegisterAgent", [.objectPath(WakeGATT.Paths.agent), .string("NoInputNoOutput")],
                        expecting: "", timeout: configuration.callTimeout)
                } catch  where error.kind == .bluez(.alreadyExists) {
                    // Registered earlier on this connection: still ours.
                }
                _ = try await bus.call(
                    destination: BlueZNames.service, path: BlueZNames.root, interface: BlueZNames.agentManager,
                    member: "RequestDefaultAgent", [.objectPath(WakeGATT.Paths.agent)], expecting: "",
                    timeout: configuration.callTimeout)
            }
        case .registerApplication(let round):
            step(.application, round: round) { [self] () async throws(DBusError) in
                _ = try await bus.call(
                    destination: BlueZNames.service, path: configuration.adapterPath,
                    interface: BlueZNames.gattManager, member: "RegisterApplication",
                    [.objectPath(WakeGATT.Paths.application), .vardict([:])], expecting: "",
                    timeout: configuration.registerTimeout)
            }
        case .registerAdvertisement(let round):
            step(.advertisement, round: round) { [self] () async throws(DBusError) in
                _ = try await bus.call(
                    destination: BlueZNames.service, path: configuration.adapterPath,
                    interface: BlueZNames.advertisingManager, member: "RegisterAdvertisement",
                    [.objectPath(WakeGATT.Paths.advertisement), .vardict([:])], expecting: "",
                    timeout: configuration.registerTimeout)
            }
        case .setPairable(let pairable, let timeout, let round):
            runtime.spawn { [self] in
                do throws(DBusError) {
                    try await setPairable(pairable, timeoutSeconds: timeout)
                    post { lifecycle, now in lifecycle.pairableSet(round: round, error: nil, at: now) }
                } catch {
                    logger.warning("could not set Pairable=\(pairable) on \(configuration.adapter): \(error)")
                    post { lifecycle, now in lifecycle.pairableSet(round: round, error: error, at: now) }
                }
            }
        case .forgetDevice(let device, let round):
            runtime.spawn { [self] in
                do throws(DBusError) {
                    _ = try await bus.call(
                        destination: BlueZNames.service, path: BlueZNames.adapterPath(configuration.adapter),
                        interface: BlueZNames.adapter, member: "RemoveDevice", [.objectPath(device)], expecting: "",
                        timeout: configuration.callTimeout)
                    logger.notice("forgot the bond with \(device.rawValue)")
                    post { lifecycle, now in lifecycle.deviceForgotten(device, round: round, error: nil, at: now) }
                } catch {
                    if error.kind != .bluez(.doesNotExist) {
                        logger.warning("could not forget the bond with \(device.rawValue): \(error)")
                    }
                    post { lifecycle, now in lifecycle.deviceForgotten(device, round: round, error: error, at: now) }
                }
            }
        case .answerPairing(let request, let answer):
            answered(request, answer)
        case .announceDiscoverable(let discoverable):
            do {
                try bus.emitPropertiesChanged(
                    path: WakeGATT.Paths.advertisement, interface: BlueZNames.advertisement,
                    changed: ["Discoverable": .boolean(discoverable)])
            } catch {
                logger.warning("could not announce Discoverable=\(discoverable): \(error)")
            }
        }
    }

    private func step(
        _ step: PeripheralLifecycle.Step, round: UInt64, _ work: @escaping @Sendable () async throws(DBusError) -> Void
    ) {
        runtime.spawn { [self] in
            do throws(DBusError) {
                try await work()
                post { lifecycle, now in lifecycle.stepSucceeded(step, round: round, at: now) }
            } catch {
                failed(step, round: round, error)
            }
        }
    }

    private func failed(_ step: PeripheralLifecycle.Step, round: UInt64, _ error: DBusError) {
        logger.warning("bluez \(step.rawValue) failed: \(error)")
        post { lifecycle, now in lifecycle.stepFailed(step, round: round, error: error, at: now) }
    }

    private func setPairable(_ pairable: Bool, timeoutSeconds: UInt32) async throws(DBusError) {
        if pairable { try await setAdapter("PairableTimeout", .uint32(timeoutSeconds)) }
        try await setAdapter("Pairable", .boolean(pairable))
    }

    private func setAdapter(_ name: String, _ value: DBusValue) async throws(DBusError) {
        try await bus.setProperty(
            name, interface: BlueZNames.adapter, path: configuration.adapterPath, destination: BlueZNames.service,
            value: value, timeout: configuration.callTimeout)
    }
}
