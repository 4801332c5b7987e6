import DBusModel

/// What bluetoothd shows on a bus at one moment, for the doctors: whether it runs, and its object tree
/// (adapters, devices, their properties). One `GetNameOwner` and one `GetManagedObjects`, each bounded.
package enum BluetoothdView: Sendable, Equatable {
    /// The bus could not be asked; the reason in words.
    case unreachable(String)
    /// `org.bluez` has no owner.
    case notRunning
    case running(DBusManagedObjects)

    package static func look(on bus: any MessageBus, timeout: Duration = .seconds(2)) async -> BluetoothdView {
        do {
            guard try await bus.nameOwner(BlueZNames.service, timeout: timeout) != nil else { return .notRunning }
            return .running(try await bus.getManagedObjects(destination: BlueZNames.service, timeout: timeout))
        } catch {
            return error.kind == .serviceUnknown ? .notRunning : .unreachable("\(error)")
        }
    }
}
