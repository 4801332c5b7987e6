import Synchronization

/// The exported objects of one bus connection (real or fake), and the routing of incoming method calls to them.
///
/// Shared by `DBusConnection` and `FakeMessageBus`, so a test of the fake answers exactly as the real bus would:
/// same errors, same standard interfaces, same `InterfacesAdded`.
package final class DBusObjectRegistry: Sendable {
    /// An exported object with its interfaces checked and indexed.
    package struct Node: Sendable {
        let path: DBusObjectPath
        let interfaces: [ExportedInterface]
        let isObjectManager: Bool

        func interface(named name: String) -> ExportedInterface? {
            interfaces.first { $0.name == name }
        }
    }

    struct ExportedInterface: Sendable {
        let declaration: DBusInterface
        let propertyTypes: [String: DBusType]

        var name: String { declaration.name }

        func method(named name: String) -> DBusMethod? {
            declaration.methods.first { $0.name == name }
        }

        func property(named name: String) -> DBusProperty? {
            declaration.properties.first { $0.name == name }
        }
    }

    /// How a call is answered: at once (on the calling thread), or by awaiting a handler.
    package enum Dispatch: Sendable {
        case reply(DBusMessage)
        case deferred(@Sendable () async -> DBusMessage)
    }

    private let nodes = Mutex<[DBusObjectPath: Node]>([:])

    package init() {}

    package var exportedPaths: [DBusObjectPath] {
        nodes.withLock { Array($0.keys) }.sorted()
    }

    package func node(at path: DBusObjectPath) -> Node? {
        nodes.withLock { $0[path] }
    }

    /// The objects strictly below `path`, sorted by path.
    func descendants(of path: DBusObjectPath) -> [Node] {
        nodes.withLock { $0.values.filter { $0.path.isDescendant(of: path) } }.sorted { $0.path < $1.path }
    }

    /// The names of the path elements directly below `path` that lead to exported objects (for introspection).
    func childNames(of path: DBusObjectPath) -> [String] {
        let prefixLength = path.rawValue == "/" ? 1 : path.rawValue.utf8.count + 1
        let names = nodes.withLock { nodes in
            nodes.keys.filter { $0.isDescendant(of: path) }.compactMap { descendant in
                String(descendant.rawValue.dropFirst(prefixLength)).split(separator: "/").first.map(String.init)
            }
        }
        return Set(names).sorted()
    }

    /// Adds an object and returns the signals announcing it (`InterfacesAdded` from the nearest object manager
    /// above it), for the caller to emit. Throws when the path is taken or the declaration is invalid.
    package func export(_ object: any DBusObject, at path: DBusObjectPath) throws(DBusError) -> [DBusMessage] {
        let node = try Self.makeNode(object, at: path)
        // The getters run now, so a property of the wrong type fails the export instead of a later Get.
        let added = try Self.allProperties(of: node)
        try nodes.withLock { (nodes: inout [DBusObjectPath: Node]) throws(DBusError) in
            guard nodes[path] == nil else {
                throw DBusError(
                    name: DBusError.Names.objectPathInUse, message: "an object is already exported at '\(path)'")
            }
            nodes[path] = node
        }
        guard let manager = nearestManager(above: path), !node.interfaces.isEmpty else { return [] }
        return [
            .signal(
                path: manager, interface: DBusStandardInterfaces.objectManager, member: "InterfacesAdded",
                body: [.objectPath(path), .interfacesAndProperties(added)])
        ]
    }

    /// Removes the object at `path` (if any) and returns the `InterfacesRemoved` signal to emit, if a manager
    /// is above it.
    package func unexport(_ path: DBusObjectPath) -> [DBusMessage] {
        guard let removed = nodes.withLock({ $0.removeValue(forKey: path) }) else { return [] }
        guard let manager = nearestManager(above: path), !removed.interfaces.isEmpty else { return [] }
        return [
            .signal(
                path: manager, interface: DBusStandardInterfaces.objectManager, member: "InterfacesRemoved",
                body: [.objectPath(path), .strings(removed.interfaces.map(\.name))])
        ]
    }

    private func nearestManager(above path: DBusObjectPath) -> DBusObjectPath? {
        var candidate = path.parent
        while let current = candidate {
            if node(at: current)?.isObjectManager == true { return current }
            candidate = current.parent
        }
        return nil
    }

    /// Checks the declaration: valid names and signatures, no duplicates, no built-in interface re-declared.
    private static func makeNode(_ object: any DBusObject, at path: DBusObjectPath) throws(DBusError) -> Node {
        guard path.isValid else { throw .invalidArgs("cannot export at invalid object path '\(path)'") }
        var seen: Set<String> = []
        var interfaces: [ExportedInterface] = []
        for declaration in object.interfaces {
            let name = declaration.name
            guard DBusNames.isValidInterface(name) else { throw .invalidArgs("invalid interface name '\(name)'") }
            guard !DBusStandardInterfaces.builtIn.contains(name) else {
                throw .invalidArgs("interface '\(name)' is built in and cannot be declared")
            }
            guard seen.insert(name).inserted else { throw .invalidArgs("interface '\(name)' is declared twice") }
            try checkMembers(declaration)
            var types: [String: DBusType] = [:]
            for property in declaration.properties {
                do {
                    types[property.name] = try property.type.singleType()
                } catch {
                    throw .invalidArgs("property '\(property.name)' of '\(name)': \(error.message)")
                }
            }
            interfaces.append(ExportedInterface(declaration: declaration, propertyTypes: types))
        }
        return Node(path: path, interfaces: interfaces, isObjectManager: object.isObjectManager)
    }

    private static func checkMembers(_ declaration: DBusInterface) throws(DBusError) {
        let interface = declaration.name
        let names =
            declaration.methods.map(\.name) + declaration.properties.map(\.name)
            + declaration.signals.map(\.name)
        for name in names where !DBusNames.isValidMember(name) {
            throw .invalidArgs("invalid member name '\(name)' in '\(interface)'")
        }
        guard Set(declaration.methods.map(\.name)).count == declaration.methods.count,
            Set(declaration.properties.map(\.name)).count == declaration.properties.count
        else { throw .invalidArgs("'\(interface)' declares a method or property twice") }
        for method in declaration.methods {
            do {
                _ = try method.inputs.types()
                _ = try method.outputs.types()
            } catch {
                throw .invalidArgs("method '\(method.name)' of '\(interface)': \(error.message)")
            }
        }
        for signal in declaration.signals {
            do {
                _ = try signal.arguments.types()
            } catch {
                throw .invalidArgs("signal '\(signal.name)' of '\(interface)': \(error.message)")
            }
        }
    }

    /// The current value of a property, checked against its declared type; nil when the getter leaves it out.
    static func value(of property: DBusProperty, in interface: ExportedInterface) throws(DBusError) -> DBusValue? {
        guard let value = property.getter() else { return nil }
        guard let type = interface.propertyTypes[property.name], value.hasType(type) else {
            throw .failed(
                "property '\(property.name)' of '\(interface.name)' has a value of type '\(value.type)', "
                    + "declared '\(property.type)'")
        }
        do {
            try value.validate()
        } catch {
            throw .failed("property '\(property.name)' of '\(interface.name)': \(error.message)")
        }
        return value
    }

    static func allProperties(of interface: ExportedInterface) throws(DBusError) -> [String: DBusValue] {
        var result: [String: DBusValue] = [:]
        for property in interface.declaration.properties {
            if let value = try value(of: property, in: interface) { result[property.name] = value }
        }
        return result
    }

    static func allProperties(of node: Node) throws(DBusError) -> [String: [String: DBusValue]] {
        var result: [String: [String: DBusValue]] = [:]
        for interface in node.interfaces {
            result[interface.name] = try allProperties(of: interface)
        }
        return result
    }
}
