extension DBusObjectRegistry {
    /// Answers a method call addressed to this connection: the standard interfaces here, the others through
    /// the exported object's handlers. Every failure becomes a D-Bus error reply, never a crash.
    package func dispatch(_ call: DBusMessage) -> Dispatch {
        guard let path = call.path, let member = call.member else {
            return .reply(.error(replyingTo: call, .invalidArgs("a method call needs a path and a member")))
        }
        guard let node = node(at: path) else {
            if call.interface ?? DBusStandardInterfaces.introspectable == DBusStandardInterfaces.introspectable,
                member == "Introspect", !childNames(of: path).isEmpty
            {
                // A path above exported objects: introspection lets tools walk down to them.
                return .reply(.methodReturn(replyingTo: call, body: [.string(introspectionXML(for: nil, at: path))]))
            }
            return .reply(.error(replyingTo: call, .unknownObject(path)))
        }
        switch call.interface {
        case DBusStandardInterfaces.properties?:
            return .reply(answer(call) { () throws(DBusError) in try propertiesCall(call, member: member, node: node) })
        case DBusStandardInterfaces.introspectable?:
            return .reply(answer(call) { () throws(DBusError) in try introspect(call, member: member, node: node) })
        case DBusStandardInterfaces.objectManager? where node.isObjectManager:
            return .reply(answer(call) { () throws(DBusError) in try managedObjects(call, member: member, node: node) })
        case DBusStandardInterfaces.peer?:
            return .reply(answer(call) { () throws(DBusError) in try peer(call, member: member, node: node) })
        case let name?:
            guard let interface = node.interface(named: name) else {
                return .reply(.error(replyingTo: call, .unknownInterface(name, at: path)))
            }
            guard let method = interface.method(named: member) else {
                return .reply(.error(replyingTo: call, .unknownMethod(member, interface: name, at: path)))
            }
            return invoke(method, interface: name, call: call)
        case nil:
            return dispatchWithoutInterface(call, member: member, node: node)
        }
    }

    /// A call without an interface header goes to the first interface that has a method of that name.
    private func dispatchWithoutInterface(_ call: DBusMessage, member: String, node: Node) -> Dispatch {
        for interface in node.interfaces {
            if let method = interface.method(named: member) {
                return invoke(method, interface: interface.name, call: call)
            }
        }
        let standard: String? =
            switch member {
            case "Get", "GetAll", "Set": DBusStandardInterfaces.properties
            case "Introspect": DBusStandardInterfaces.introspectable
            case "GetManagedObjects" where node.isObjectManager: DBusStandardInterfaces.objectManager
            default: nil
            }
        guard let standard else {
            return .reply(.error(replyingTo: call, .unknownMethod(member, interface: nil, at: node.path)))
        }
        var routed = call
        routed.interface = standard
        return dispatch(routed)
    }

    private func invoke(_ method: DBusMethod, interface: String, call: DBusMessage) -> Dispatch {
        guard call.signature == method.inputs else {
            return .reply(
                .error(
                    replyingTo: call,
                    .invalidArgs(
                        "method '\(method.name)' of interface '\(interface)' expects arguments "
                            + "'\(method.inputs)', got '\(call.signature)'")))
        }
        switch method.body {
        case .immediate(let handler):
            return .reply(
                Self.checkedReturn(call, method: method, interface: interface) { () throws(DBusError) in
                    try handler(call)
                })
        case .deferred(let handler):
            return .deferred {
                let result: Result<[DBusValue], DBusError>
                do throws(DBusError) {
                    result = .success(try await handler(call))
                } catch {
                    result = .failure(error)
                }
                return Self.checkedReturn(call, method: method, interface: interface) { () throws(DBusError) in
                    try result.get()
                }
            }
        }
    }

    /// The handler's answer, checked against the declared outputs: a wrong reply is the handler's bug and is
    /// reported to the caller as `Failed`.
    private static func checkedReturn(
        _ call: DBusMessage, method: DBusMethod, interface: String,
        _ produce: () throws(DBusError) -> [DBusValue]
    ) -> DBusMessage {
        let values: [DBusValue]
        do {
            values = try produce()
        } catch {
            return .error(replyingTo: call, error)
        }
        guard values.signature == method.outputs else {
            return .error(
                replyingTo: call,
                .failed(
                    "method '\(method.name)' of '\(interface)' returned '\(values.signature)', "
                        + "declared '\(method.outputs)'"))
        }
        for value in values {
            do {
                try value.validate()
            } catch {
                return .error(
                    replyingTo: call, .failed("method '\(method.name)' of '\(interface)' returned: \(error.message)"))
            }
        }
        return .methodReturn(replyingTo: call, body: values)
    }

    private func answer(_ call: DBusMessage, _ produce: () throws(DBusError) -> [DBusValue]) -> DBusMessage {
        do {
            return .methodReturn(replyingTo: call, body: try produce())
        } catch {
            return .error(replyingTo: call, error)
        }
    }

    private func propertiesCall(_ call: DBusMessage, member: String, node: Node) throws(DBusError) -> [DBusValue] {
        let properties = DBusStandardInterfaces.properties
        switch member {
        case "Get":
            let arguments = try call.arguments("ss")
            let (interface, name) = (arguments[0].stringValue ?? "", arguments[1].stringValue ?? "")
            let exported = try propertyInterface(interface, node: node)
            guard let property = exported.property(named: name),
                let value = try Self.value(of: property, in: exported)
            else { throw .unknownProperty(name, interface: interface) }
            return [.variant(value)]
        case "GetAll":
            let interface = try call.arguments("s")[0].stringValue ?? ""
            return [.vardict(try Self.allProperties(of: try propertyInterface(interface, node: node)))]
        case "Set":
            let arguments = try call.arguments("ssv")
            let (interface, name) = (arguments[0].stringValue ?? "", arguments[1].stringValue ?? "")
            let newValue = arguments[2].variantValue ?? arguments[2]
            let exported = try propertyInterface(interface, node: node)
            guard let property = exported.property(named: name), let type = exported.propertyTypes[name] else {
                throw .unknownProperty(name, interface: interface)
            }
            guard let setter = property.setter else { throw .propertyReadOnly(name, interface: interface) }
            guard newValue.hasType(type) else {
                throw .invalidArgs("property '\(name)' of '\(interface)' has type '\(type)', got '\(newValue.type)'")
            }
            try setter(newValue)
            return []
        default:
            throw .unknownMethod(member, interface: properties, at: node.path)
        }
    }

    /// The interface a Properties call names; the standard interfaces have no properties.
    private func propertyInterface(_ name: String, node: Node) throws(DBusError) -> ExportedInterface {
        if let exported = node.interface(named: name) { return exported }
        if DBusStandardInterfaces.builtIn.contains(name) {
            return ExportedInterface(declaration: DBusInterface(name), propertyTypes: [:])
        }
        throw .unknownInterface(name, at: node.path)
    }

    private func introspect(_ call: DBusMessage, member: String, node: Node) throws(DBusError) -> [DBusValue] {
        guard member == "Introspect" else {
            throw .unknownMethod(member, interface: DBusStandardInterfaces.introspectable, at: node.path)
        }
        _ = try call.arguments("")
        return [.string(introspectionXML(for: node, at: node.path))]
    }

    private func managedObjects(_ call: DBusMessage, member: String, node: Node) throws(DBusError) -> [DBusValue] {
        guard member == "GetManagedObjects" else {
            throw .unknownMethod(member, interface: DBusStandardInterfaces.objectManager, at: node.path)
        }
        _ = try call.arguments("")
        var objects: DBusManagedObjects = [:]
        for descendant in descendants(of: node.path) where !descendant.interfaces.isEmpty {
            objects[descendant.path] = try Self.allProperties(of: descendant)
        }
        return [.managedObjects(objects)]
    }

    /// libdbus answers `Peer` itself on a real connection; the fake bus gets the same answer here.
    private func peer(_ call: DBusMessage, member: String, node: Node) throws(DBusError) -> [DBusValue] {
        guard member == "Ping" else {
            throw .unknownMethod(member, interface: DBusStandardInterfaces.peer, at: node.path)
        }
        _ = try call.arguments("")
        return []
    }
}
