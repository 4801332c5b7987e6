/// Something exported on the bus at an object path: the interfaces it implements.
///
/// `interfaces` is read once, at export: the set of interfaces, methods and properties stays fixed while the
/// object is exported (bluetoothd reads a GATT application once). Property values are read through their
/// getters on every `Get`/`GetAll`/`GetManagedObjects`, so they are always current.
///
/// `org.freedesktop.DBus.Properties` and `org.freedesktop.DBus.Introspectable` come built in;
/// `org.freedesktop.DBus.ObjectManager` too when `isObjectManager` is true.
package protocol DBusObject: Sendable {
    var interfaces: [DBusInterface] { get }
    /// Whether this object answers `GetManagedObjects` for the objects below its path, and announces their
    /// export and unexport with `InterfacesAdded`/`InterfacesRemoved` (a BlueZ GATT application root does).
    var isObjectManager: Bool { get }
}

extension DBusObject {
    package var isObjectManager: Bool { false }
}

/// A `DBusObject` built from values, for objects that need no type of their own.
package struct DBusExportedObject: DBusObject {
    package var interfaces: [DBusInterface]
    package var isObjectManager: Bool

    package init(interfaces: [DBusInterface], isObjectManager: Bool = false) {
        self.interfaces = interfaces
        self.isObjectManager = isObjectManager
    }

    /// An object with no interface of its own that manages the objects below it (a GATT application root).
    package static let objectManager = DBusExportedObject(interfaces: [], isObjectManager: true)
}

/// One interface of an exported object.
package struct DBusInterface: Sendable {
    package var name: String
    package var methods: [DBusMethod]
    package var properties: [DBusProperty]
    /// Signals, for introspection only: emitting one needs no declaration.
    package var signals: [DBusSignalDescription]

    package init(
        _ name: String, methods: [DBusMethod] = [], properties: [DBusProperty] = [],
        signals: [DBusSignalDescription] = []
    ) {
        self.name = name
        self.methods = methods
        self.properties = properties
        self.signals = signals
    }
}

/// A method an object answers. The incoming body is checked against `inputs` before the handler runs (a
/// mismatch is answered with `InvalidArgs`), and the handler's result against `outputs` (a mismatch is answered
/// with `Failed`): a handler can pick arguments by position without checking types.
package struct DBusMethod: Sendable {
    package typealias Handler = @Sendable (DBusMessage) throws(DBusError) -> [DBusValue]
    package typealias AsyncHandler = @Sendable (DBusMessage) async throws(DBusError) -> [DBusValue]

    enum Body: Sendable {
        case immediate(Handler)
        case deferred(AsyncHandler)
    }

    package var name: String
    package var inputs: DBusSignature
    package var outputs: DBusSignature
    let body: Body

    /// A method answered on the bus thread, before the next incoming message: keep it short and non-blocking
    /// (read state behind a `Mutex`, start work elsewhere). Calls are answered in the order they arrive.
    package init(
        _ name: String, inputs: DBusSignature = .empty, outputs: DBusSignature = .empty,
        handler: @escaping Handler
    ) {
        self.name = name
        self.inputs = inputs
        self.outputs = outputs
        self.body = .immediate(handler)
    }

    /// A method answered from a task of its own, for handlers that need to await (an actor, another call).
    /// Such calls may complete in any order.
    package static func async(
        _ name: String, inputs: DBusSignature = .empty, outputs: DBusSignature = .empty,
        handler: @escaping AsyncHandler
    ) -> DBusMethod {
        DBusMethod(name: name, inputs: inputs, outputs: outputs, body: .deferred(handler))
    }

    private init(name: String, inputs: DBusSignature, outputs: DBusSignature, body: Body) {
        self.name = name
        self.inputs = inputs
        self.outputs = outputs
        self.body = body
    }
}

/// A property of an exported interface.
package struct DBusProperty: Sendable {
    package typealias Getter = @Sendable () -> DBusValue?
    package typealias Setter = @Sendable (DBusValue) throws(DBusError) -> Void

    package var name: String
    /// The property's single complete type; the getter's values are checked against it.
    package var type: DBusSignature
    /// The current value, read on every request, on the bus thread (keep it cheap). nil leaves the property
    /// out (BlueZ's optional properties): `GetAll` omits it and `Get` answers `UnknownProperty`.
    let getter: Getter
    /// nil for a read-only property: `Set` is then answered with `PropertyReadOnly`.
    let setter: Setter?

    package init(_ name: String, type: DBusSignature, get: @escaping Getter, set: Setter? = nil) {
        self.name = name
        self.type = type
        self.getter = get
        self.setter = set
    }

    /// A read-only property with a fixed value (a characteristic's UUID, its flags).
    package static func constant(_ name: String, _ value: DBusValue) -> DBusProperty {
        DBusProperty(name, type: value.signature, get: { value })
    }

    package var isWritable: Bool { setter != nil }
}

/// A signal named in introspection data.
package struct DBusSignalDescription: Sendable, Hashable {
    package var name: String
    package var arguments: DBusSignature

    package init(_ name: String, arguments: DBusSignature = .empty) {
        self.name = name
        self.arguments = arguments
    }
}
