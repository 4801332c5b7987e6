import DBusModel

/// A part of the phone that lives on the person's session bus: the notifications (`DesktopCardSurface`), the
/// tray item with the launcher entry (`TraySurface`) and KDE's job views (`JobViewSurface`). `SessionBus`
/// hands each the one connection.
package protocol SessionBusSurface: AnyObject, Sendable {
    /// The connection is up: export, watch names, make the first calls. A surface that cannot start on it
    /// (its server absent, an export refused) says so in its log and waits: it never fails the connection
    /// or the other surfaces.
    func attach(to bus: any BusConnection) async
    /// The connection is being closed (lost, or at stop): undo what `attach` did on it.
    func detach(from bus: any BusConnection) async
    /// No connection now (an attempt failed, or the bus went away); another is being tried.
    func busUnavailable()
}
