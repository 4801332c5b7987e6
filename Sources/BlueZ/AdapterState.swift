import DBusModel

/// What is known about one adapter object (`/org/bluez/hci0`) from bluetoothd's object tree and its signals.
package struct AdapterState: Sendable, Equatable {
    /// Interfaces the object carries now (empty: the adapter is not there).
    package var interfaces: Set<String> = []
    package var powered = false
    /// "AA:BB:CC:DD:EE:FF", as bluetoothd reports it.
    package var address: String?

    package init(interfaces: Set<String> = [], powered: Bool = false, address: String? = nil) {
        self.interfaces = interfaces
        self.powered = powered
        self.address = address
    }

    /// The adapter at `path` in a `GetManagedObjects` answer (absent: no interfaces).
    package init(path: DBusObjectPath, in objects: DBusManagedObjects) {
        self.init()
        guard let object = objects[path] else { return }
        interfaces = Set(object.keys)
        if let properties = object[BlueZNames.adapter] { apply(properties) }
    }

    package var isPresent: Bool { interfaces.contains(BlueZNames.adapter) }

    /// Applies a signal about `path` if it concerns this adapter; returns whether anything changed.
    @discardableResult
    package mutating func apply(_ signal: BlueZSignal, adapterPath path: DBusObjectPath) -> Bool {
        let before = self
        switch signal {
        case .interfacesAdded(path, let added):
            interfaces.formUnion(added.keys)
            if let properties = added[BlueZNames.adapter] { apply(properties) }
        case .interfacesRemoved(path, let removed):
            interfaces.subtract(removed)
            if !isPresent { self = AdapterState() }
        case .propertiesChanged(path, BlueZNames.adapter, let changed, _):
            apply(changed)
        default:
            break
        }
        return self != before
    }

    private mutating func apply(_ properties: [String: DBusValue]) {
        if let value = properties["Powered"]?.unwrappingVariants.boolValue { powered = value }
        if let value = properties["Address"]?.unwrappingVariants.stringValue { address = value }
    }
}
