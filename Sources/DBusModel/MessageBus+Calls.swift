/// Conveniences over the `MessageBus` requirements: typed standard calls with strict reply checks.
extension MessageBus {
    /// Calls a method and returns the reply's body. With `expecting`, the reply must have exactly that
    /// signature (else `InvalidArgs` naming both), so the caller can pick values by position.
    package func call(
        destination: String?, path: DBusObjectPath, interface: String?, member: String, _ body: [DBusValue] = [],
        expecting: DBusSignature? = nil, timeout: Duration = DBusMessage.defaultCallTimeout
    ) async throws(DBusError) -> [DBusValue] {
        let message = DBusMessage.methodCall(
            destination: destination, path: path, interface: interface, member: member, body: body)
        let reply = try await call(message, timeout: timeout)
        guard let expecting else { return reply.body }
        guard reply.signature == expecting else {
            throw .invalidArgs(
                "reply to \(message.memberDescription) was expected as '\(expecting)', got '\(reply.signature)'")
        }
        return reply.body
    }

    package func emitSignal(
        path: DBusObjectPath, interface: String, member: String, _ body: [DBusValue] = []
    ) throws(DBusError) {
        try emit(.signal(path: path, interface: interface, member: member, body: body))
    }

    /// Emits `org.freedesktop.DBus.Properties.PropertiesChanged` (how a GATT notification reaches bluetoothd).
    package func emitPropertiesChanged(
        path: DBusObjectPath, interface: String, changed: [String: DBusValue], invalidated: [String] = []
    ) throws(DBusError) {
        try emitSignal(
            path: path, interface: DBusStandardInterfaces.properties, member: "PropertiesChanged",
            [.string(interface), .vardict(changed), .strings(invalidated)])
    }

    /// `Properties.Get`, with the variant unwrapped.
    package func getProperty(
        _ name: String, interface: String, path: DBusObjectPath, destination: String,
        timeout: Duration = DBusMessage.defaultCallTimeout
    ) async throws(DBusError) -> DBusValue {
        let reply = try await call(
            destination: destination, path: path, interface: DBusStandardInterfaces.properties, member: "Get",
            [.string(interface), .string(name)], expecting: "v", timeout: timeout)
        return reply[0].variantValue ?? reply[0]
    }

    /// `Properties.GetAll`, variants unwrapped.
    package func getAllProperties(
        interface: String, path: DBusObjectPath, destination: String,
        timeout: Duration = DBusMessage.defaultCallTimeout
    ) async throws(DBusError) -> [String: DBusValue] {
        let reply = try await call(
            destination: destination, path: path, interface: DBusStandardInterfaces.properties, member: "GetAll",
            [.string(interface)], expecting: "a{sv}", timeout: timeout)
        return reply[0].vardict ?? [:]
    }

    /// `Properties.Set`.
    package func setProperty(
        _ name: String, interface: String, path: DBusObjectPath, destination: String, value: DBusValue,
        timeout: Duration = DBusMessage.defaultCallTimeout
    ) async throws(DBusError) {
        _ = try await call(
            destination: destination, path: path, interface: DBusStandardInterfaces.properties, member: "Set",
            [.string(interface), .string(name), .variant(value)], expecting: "", timeout: timeout)
    }

    /// `ObjectManager.GetManagedObjects` (BlueZ's whole object tree under `/`).
    package func getManagedObjects(
        destination: String, path: DBusObjectPath = .root, timeout: Duration = DBusMessage.defaultCallTimeout
    ) async throws(DBusError) -> DBusManagedObjects {
        let reply = try await call(
            destination: destination, path: path, interface: DBusStandardInterfaces.objectManager,
            member: "GetManagedObjects", expecting: DBusSignature([DBusValue.managedObjectsType]), timeout: timeout)
        return reply[0].managedObjects ?? [:]
    }

    /// Asks the bus for a well-known name.
    package func requestName(
        _ name: String, flags: DBusRequestNameFlags = [.doNotQueue],
        timeout: Duration = DBusMessage.defaultCallTimeout
    ) async throws(DBusError) -> DBusRequestNameReply {
        let reply = try await busCall("RequestName", [.string(name), .uint32(flags.rawValue)], "u", timeout)
        guard let code = reply[0].uint32Value, let answer = DBusRequestNameReply(rawValue: code) else {
            throw .failed("RequestName answered an unknown code \(reply[0])")
        }
        return answer
    }

    package func releaseName(
        _ name: String, timeout: Duration = DBusMessage.defaultCallTimeout
    ) async throws(DBusError) {
        _ = try await busCall("ReleaseName", [.string(name)], "u", timeout)
    }

    /// The unique name owning `name` now, or nil when nobody does.
    package func nameOwner(
        _ name: String, timeout: Duration = DBusMessage.defaultCallTimeout
    ) async throws(DBusError) -> String? {
        do {
            return try await busCall("GetNameOwner", [.string(name)], "s", timeout)[0].stringValue
        } catch  where error.kind == .serviceUnknown {
            return nil
        }
    }

    /// Calls `handler` with the new owner (nil: the name is gone) each time `name` changes hands, e.g. when
    /// bluetoothd restarts. Remove with `removeMatch`.
    package func watchNameOwner(
        _ name: String, handler: @escaping @Sendable (_ newOwner: String?) -> Void
    ) async throws(DBusError) -> DBusMatchToken {
        try await addMatch(.nameOwnerChanged(name)) { message in
            guard message.signature == "sss", message.body[0].stringValue == name,
                let newOwner = message.body[2].stringValue
            else { return }
            handler(newOwner.isEmpty ? nil : newOwner)
        }
    }

    private func busCall(
        _ member: String, _ body: [DBusValue], _ expecting: DBusSignature, _ timeout: Duration
    ) async throws(DBusError) -> [DBusValue] {
        try await call(
            destination: DBusStandardInterfaces.busName, path: DBusStandardInterfaces.busPath,
            interface: DBusStandardInterfaces.busInterface, member: member, body, expecting: expecting,
            timeout: timeout)
    }
}
