import DBusModel
import Synchronization
import TestSupport

@testable import BlueZ

/// Scripts a `FakeMessageBus` to answer like bluetoothd: an object tree for `GetManagedObjects`, and success for
/// the adapter's `Properties.Set`, the agent manager and the register calls (tests queue errors on top).
final class FakeBlueZ: Sendable {
    static let owner = ":1.0"
    let bus = FakeMessageBus(uniqueName: ":1.7")
    private let tree = Mutex<DBusManagedObjects>([:])
    /// Who sends bluetoothd's signals: the owner `setRunning` named last.
    private let currentOwner = Mutex<String>(FakeBlueZ.owner)

    init() {
        bus.respond(to: "GetManagedObjects", interface: DBusStandardInterfaces.objectManager) { [weak self] _ in
            [.managedObjects(self?.tree.withLock { $0 } ?? [:])]
        }
        bus.respond(to: "Set", interface: DBusStandardInterfaces.properties) { _ in [] }
        for member in [
            "RegisterAgent", "RequestDefaultAgent", "RegisterApplication", "RegisterAdvertisement",
            "SetDiscoveryFilter", "StartDiscovery", "StopDiscovery", "Connect", "StartNotify",
        ] {
            bus.respond(to: member) { _ in [] }
        }
    }

    /// An adapter object as bluetoothd 5.66 shows it.
    static func adapter(
        powered: Bool = true, address: String = "00:AA:01:00:12:34",
        interfaces: [String] = [BlueZNames.adapter, BlueZNames.gattManager, BlueZNames.advertisingManager]
    ) -> [String: [String: DBusValue]] {
        var object: [String: [String: DBusValue]] = [:]
        for interface in interfaces { object[interface] = [:] }
        if interfaces.contains(BlueZNames.adapter) {
            object[BlueZNames.adapter] = [
                "Address": .string(address), "Powered": .boolean(powered), "Pairable": .boolean(true),
                "Discoverable": .boolean(false),
            ]
        }
        return object
    }

    func setObject(_ path: DBusObjectPath, _ interfaces: [String: [String: DBusValue]]?) {
        tree.withLock { $0[path] = interfaces }
    }

    /// bluetoothd (re)appears as `owner`, or leaves (nil).
    func setRunning(_ owner: String?) {
        if let owner { currentOwner.withLock { $0 = owner } }
        bus.setNameOwner(BlueZNames.service, to: owner)
    }

    /// A signal from bluetoothd, or, with `sender`, one that somebody else on the bus sends in its name.
    func signal(
        _ path: DBusObjectPath, interface: String, member: String, _ body: [DBusValue], sender: String? = nil
    ) {
        var message = DBusMessage.signal(path: path, interface: interface, member: member, body: body)
        message.sender = sender ?? currentOwner.withLock { $0 }
        bus.deliverSignal(message)
    }

    func propertiesChanged(
        _ path: DBusObjectPath, interface: String, _ changed: [String: DBusValue], sender: String? = nil
    ) {
        signal(
            path, interface: DBusStandardInterfaces.properties, member: "PropertiesChanged",
            [.string(interface), .vardict(changed), .strings([])], sender: sender)
    }

    func interfacesAdded(_ path: DBusObjectPath, _ interfaces: [String: [String: DBusValue]]) {
        signal(
            .root, interface: DBusStandardInterfaces.objectManager, member: "InterfacesAdded",
            [.objectPath(path), .interfacesAndProperties(interfaces)])
    }

    func interfacesRemoved(_ path: DBusObjectPath, _ interfaces: [String]) {
        signal(
            .root, interface: DBusStandardInterfaces.objectManager, member: "InterfacesRemoved",
            [.objectPath(path), .strings(interfaces)])
    }

    /// Calls an exported method as bluetoothd (the owner of org.bluez) would.
    @discardableResult
    func callExported(
        _ path: DBusObjectPath, _ interface: String, _ member: String, _ body: [DBusValue] = [],
        sender: String = FakeBlueZ.owner
    ) async -> DBusMessage {
        var call = DBusMessage.methodCall(
            destination: bus.uniqueName, path: path, interface: interface, member: member, body: body)
        call.sender = sender
        return await bus.deliverCall(call)
    }

    /// Only the calls the code under test made (no exports, matches or signals), one line each.
    var callLines: [String] {
        bus.transcript.compactMap { event in
            if case .called = event { return event.description }
            return nil
        }
    }
}
