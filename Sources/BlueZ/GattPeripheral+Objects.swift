import DBusModel
import Logging

/// The objects bluetoothd reads and calls: service, characteristic, advertisement, agent. Every handler runs on
/// the bus thread, takes the lock briefly and answers; bad input is a D-Bus error, never a crash.
extension GattPeripheral {
    func serviceObject() -> DBusExportedObject {
        DBusExportedObject(interfaces: [
            DBusInterface(
                BlueZNames.gattService,
                properties: [
                    .constant("UUID", .string(WakeGATT.serviceUUID)),
                    .constant("Primary", .boolean(true)),
                    .constant("Characteristics", .objectPaths([WakeGATT.Paths.characteristic])),
                ])
        ])
    }

    func characteristicObject() -> DBusExportedObject {
        DBusExportedObject(interfaces: [
            DBusInterface(
                BlueZNames.gattCharacteristic,
                methods: [
                    DBusMethod("ReadValue", inputs: "a{sv}", outputs: "ay") { [weak self] call throws(DBusError) in
                        guard let self else { throw .failed("the Wake characteristic is gone") }
                        let request = try GattReadRequest(options: call.body[0])
                        return [.bytes(try request.slice(self.value))]
                    },
                    DBusMethod("WriteValue", inputs: "aya{sv}", outputs: "") { _ throws(DBusError) in
                        throw .bluez(.notPermitted, "the Wake characteristic is read and notify only")
                    },
                    DBusMethod("StartNotify") { [weak self] call throws(DBusError) in
                        try self?.notifyCall(call, start: true)
                        return []
                    },
                    DBusMethod("StopNotify") { [weak self] call throws(DBusError) in
                        try self?.notifyCall(call, start: false)
                        return []
                    },
                ],
                properties: [
                    .constant("UUID", .string(WakeGATT.characteristicUUID)),
                    // Type `o`: sent as a string, bluetoothd rejects the whole application.
                    .constant("Service", .objectPath(WakeGATT.Paths.service)),
                    .constant("Flags", .strings(flags)),
                    DBusProperty("Value", type: "ay") { [weak self] in self.map { .bytes($0.value) } },
                    DBusProperty("Notifying", type: "b") { [weak self] in
                        self.map { peripheral in .boolean(peripheral.driver.withLifecycle { $0.isNotifying }) }
                    },
                ])
        ])
    }

    func advertisementObject() -> DBusExportedObject {
        let properties = ["Type", "ServiceUUIDs", "ManufacturerData", "LocalName", "Discoverable"]
        let sample = WakeAdvertisement(adapterAddress: nil, discoverable: false).properties
        return DBusExportedObject(interfaces: [
            DBusInterface(
                BlueZNames.advertisement,
                methods: [
                    DBusMethod("Release") { [weak self] _ in
                        self?.advertisementReleased()
                        return []
                    }
                ],
                properties: properties.compactMap { name in
                    guard let type = sample[name]?.signature else { return nil }
                    return DBusProperty(name, type: type) { [weak self] in self?.advertisement.properties[name] }
                })
        ])
    }

    func agentObject() -> DBusExportedObject {
        PairingAgent.object(role: "this board") { [weak self] question, call throws(DBusError) in
            guard let self else { throw Self.rejected("the board's agent is gone") }
            switch question {
            case .confirmation: try authorize("pairing confirmation", call)
            case .authorization: try authorize("pairing", call)
            case .service: try authorizeService(call)
            }
        }
    }

    static func rejected(_ message: String) -> DBusError {
        PairingAgent.rejected(message)
    }

    /// The advertisement as bluetoothd should see it now (address from the adapter, discoverable while pairing).
    var advertisement: WakeAdvertisement {
        driver.withLifecycle { lifecycle in
            WakeAdvertisement(
                adapterAddress: lifecycle.adapterAddress, discoverable: lifecycle.advertisesDiscoverable)
        }
    }

    private func notifyCall(_ call: DBusMessage, start: Bool) throws(DBusError) {
        let sender = call.sender ?? ""
        let result = driver.withLifecycle { lifecycle in
            start ? lifecycle.startNotify(from: sender) : lifecycle.stopNotify(from: sender)
        }
        switch result {
        case .success:
            logger.debug("\(start ? "StartNotify" : "StopNotify") from \(sender)")
            factsChanged()
        case .failure(let error):
            throw error
        }
    }

    /// `AuthorizeService(device, uuid)`: the board offers one service, the Wake service, so any other UUID is
    /// refused even inside a pairing window (a device that just bonded gets nothing else from the board's
    /// bluetoothd through this agent); the Wake service only inside a window, like pairing itself.
    private func authorizeService(_ call: DBusMessage) throws(DBusError) {
        let uuid = call.body[1].stringValue ?? ""
        guard uuid.lowercased() == WakeGATT.serviceUUID else {
            let device = call.body.first?.objectPathValue?.rawValue ?? "?"
            let shown = ControlCharacter.shown(uuid, limit: 64)
            logger.notice("refused service \(shown) for \(device): only the Wake service is authorised")
            throw Self.rejected(
                "this board authorises only its Wake service (\(WakeGATT.serviceUUID)), not \(shown)")
        }
        try authorize("service \(WakeGATT.serviceUUID)", call)
    }

    private func authorize(_ what: String, _ call: DBusMessage) throws(DBusError) {
        let device = call.body.first?.objectPathValue?.rawValue ?? "?"
        let now = runtime.monotonicNow()
        let path = call.body.first?.objectPathValue
        let sender = call.sender
        let (allowed, bluetoothd) = driver.withLifecycle {
            ($0.authorizesPairing(of: path, askedBy: sender, at: now), $0.bluezOwnerName)
        }
        guard sender != nil, sender == bluetoothd else {
            // Only bluetoothd asks an agent; anybody else on the bus calling it is probing for a yes.
            logger.warning("refused \(what) for \(device) asked by \(sender ?? "(no sender)"): not bluetoothd")
            throw Self.rejected("this agent answers bluetoothd (the owner of org.bluez) only")
        }
        guard allowed else {
            logger.notice("refused \(what) for \(device): no pairing window is open for it")
            throw Self.rejected("no pairing window is open for this device (the phone opens one over the USB cable)")
        }
        logger.notice("accepted \(what) for \(device) inside the pairing window")
    }

    private func advertisementReleased() {
        logger.notice("bluetoothd released the advertisement")
        post { lifecycle, now in lifecycle.advertisementReleased(at: now) }
    }
}
