import BlueZ
import Configuration
import DBus
import DesktopNotifications
import Doctor
import PhoneCore
import Platform
import Synchronization
import USBLink

/// The doctor's shell: gathers `Facts` from this host (files, sysfs, getifaddrs, libusb, the board over
/// HTTP, the buses), each step bounded, then hands them to the pure judgement.
extension PhoneDoctor {
    /// Where the doctor looks; tests point it at private buses, fixture trees and canned answers.
    package struct System: Sendable {
        package var environment: [String: String]
        /// Root reads /etc and /var/lib; anyone else their XDG directories (`PhonePaths`).
        package var isRoot = CurrentProcess.isRoot()
        package var systemBus: DBusConnection.Address = .system
        package var usbDevices = "/sys/bus/usb/devices"
        package var deviceNodes = "/dev/bus/usb"
        package var udevRuleDirectories = PhoneDoctor.udevRuleDirectories
        package var routeTable = "/proc/net/route"
        package var interfaces: @Sendable () -> LocalInterfaces = { LocalInterfaces.current() }
        /// Performs one request to the board (HTTPBoardTransport's short timeouts).
        package var board: @Sendable (PhoneConfiguration.Board, BoardRequest) -> BoardResponse = { board, request in
            HTTPBoardTransport(board: board).perform(request)
        }
        package var hotplug: @Sendable (UInt16, UInt16) -> Hotplug = { vendorID, productID in
            PhoneDoctor.tryHotplug(vendorID: vendorID, productID: productID)
        }

        package init(environment: [String: String]) {
            self.environment = environment
        }
    }

    /// Loads the configuration (as the daemon does, from `configPath` or the standard places), looks,
    /// judges. A configuration error is the only finding: nothing else can be checked without it.
    package static func examine(configPath: String?, system: System) -> [DoctorFinding] {
        checks(configPath: configPath, system: system).map(\.finding)
    }

    /// As `examine`, each finding with the name of its check (`doctor --json`).
    package static func checks(configPath: String?, system: System) -> [DoctorCheck] {
        let paths = PhonePaths.resolve(isRoot: system.isRoot, environment: system.environment)
        let candidates = configPath.map { [$0] } ?? paths.configurationFiles
        let loaded: (configuration: PhoneConfiguration, file: String?)
        do throws(ConfigurationError) {
            loaded = try PhoneDaemon.loadConfiguration(configPath, paths: paths, environment: system.environment)
        } catch {
            let named = error.file == "environment" ? "the environment" : error.file
            return [DoctorCheck("configuration", .problem("\(error)", fix: "correct \(named)"))]
        }
        let state = loaded.configuration.state.directory ?? paths.stateDirectory
        return checks(
            look(
                configPath: loaded.file ?? candidates.joined(separator: " or "), usedDefaults: loaded.file == nil,
                configuration: loaded.configuration, statePath: state, system: system))
    }

    static func look(
        configPath: String, usedDefaults: Bool, configuration: PhoneConfiguration, statePath: String?,
        system: System
    ) -> Facts {
        let url = configuration.board.url
        let overLink = boardAddress(url) != nil
        let bluez = configuration.wake.transport == .bluez
        var facts = Facts(
            configPath: configPath, usedDefaults: usedDefaults, configuration: configuration,
            statePath: statePath ?? "(none: no home directory)",
            stateDirectory: statePath.map(DirectoryAccess.check)
                ?? .denied("no state directory: not root, no absolute $HOME or $XDG_STATE_HOME"),
            user: CurrentProcess.userName(), status: system.board(configuration.board, .status))
        if overLink {
            facts.interfaces = system.interfaces()
            facts.routes = KernelRoute.readTable(path: system.routeTable).map(KernelRoute.parseTable)
            facts.udevRule = installedRule(in: system.udevRuleDirectories)
            facts.usbDevices = USBDeviceRecord.scan(
                vendorID: configuration.usb.vendorID, productID: configuration.usb.productID,
                root: system.usbDevices, nodes: system.deviceNodes)
            facts.hotplug = system.hotplug(configuration.usb.vendorID, configuration.usb.productID)
        }
        if bluez {
            // A board that did not answer /status is not asked again (each try may take the full timeout).
            if case .answered = facts.status {
                facts.bluetoothStatus = system.board(configuration.board, .bluetoothStatus)
            }
            let address = system.systemBus
            facts.bluetoothd = Blocking.run { await bluetoothdView(address) }
        }
        let location = SessionBusLocation.find(
            environment: system.environment, socketExists: POSIXFileSystem().fileExists)
        facts.session = Blocking.run { await sessionView(location) }
        return facts
    }

    /// The first `70-aiden-phone.rules` in udev's order: the one udev uses.
    static func installedRule(in directories: [String]) -> InstalledFile? {
        let fileSystem = POSIXFileSystem()
        for directory in directories {
            let path = directory + "/" + udevRuleName
            if let bytes = try? fileSystem.readFile(at: path) {
                return InstalledFile(path: path, text: String(decoding: bytes.prefix(64 * 1024), as: UTF8.self))
            }
        }
        return nil
    }

    /// Starts a hotplug watcher exactly as the daemon does, counts what it enumerates, stops it.
    static func tryHotplug(vendorID: UInt16, productID: UInt16) -> Hotplug {
        let watcher = USBHotplugWatcher(vendorID: vendorID, productID: productID)
        let arrivals = Atomic<Int>(0)
        let monitoring = watcher.start { event in
            if case .arrived = event { arrivals.add(1, ordering: .relaxed) }
        }
        watcher.stop()
        return Hotplug(
            monitoring: monitoring, libraryVersion: LibUSB.version, enumerated: arrivals.load(ordering: .relaxed))
    }

    static func bluetoothdView(_ address: DBusConnection.Address) async -> BluetoothdView {
        let connection: DBusConnection
        do {
            connection = try await DBusConnection.connect(to: address, timeout: .seconds(2))
        } catch {
            return .unreachable("\(error)")
        }
        defer { connection.close() }
        return await BluetoothdView.look(on: connection)
    }

    /// Connects to the session bus and asks for the notification server the way the client does.
    static func sessionView(_ location: SessionBusLocation) async -> SessionView {
        guard let address = location.address else { return SessionView(location: location) }
        let connection: DBusConnection
        do {
            connection = try await DBusConnection.connect(to: .address(address), timeout: .seconds(2))
        } catch {
            return SessionView(location: location, notifications: .busUnreachable("\(error)"))
        }
        defer { connection.close() }
        switch await DesktopNotifier.connect(bus: connection) {
        case let .success(notifier): return SessionView(location: location, notifications: .server(notifier.server))
        case let .failure(error): return SessionView(location: location, notifications: .noServer(error.name))
        }
    }
}
