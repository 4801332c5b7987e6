#if canImport(Glibc)
import Glibc
#endif

/// Brings the board's USB ECM gadget up or down in configfs: reads the tree, asks `GadgetPlanner`
/// what to change, performs the steps, and turns kernel refusals into errors that say what to do.
/// Both directions are idempotent: `up` on a gadget that is already up, or `down` on one that is
/// not there, changes nothing.
package struct GadgetController: Sendable {
    package let tree: any GadgetFileTree
    package let paths: GadgetPaths

    package init(tree: any GadgetFileTree = POSIXGadgetTree(), paths: GadgetPaths = GadgetPaths()) {
        self.tree = tree
        self.paths = paths
    }

    /// Creates (or completes, or corrects) the gadget and binds it. `udc` is the one asked for
    /// (`--udc`, else `[gadget] udc`); nil picks the bound one or the first listed.
    package func up(vendorID: UInt16, productID: UInt16, udc requested: String?) throws(GadgetError) -> GadgetReport {
        if let requested, !Self.isUDCName(requested) { throw .invalidUDCName(requested) }
        try requireConfigfs()
        let spec = GadgetSpec(vendorID: vendorID, productID: productID, identity: try identity())
        let observed = try observe(spec)
        let available = try? tree.contents(of: paths.udcClass)
        let udc: String
        switch GadgetPlanner.chooseUDC(requested: requested, bound: observed.boundUDC, available: available) {
        case let .use(name): udc = name
        case .noneAvailable: throw .noUDC(classDirectory: paths.udcClass)
        case let .notFound(name, listed): throw .udcNotFound(name, available: listed)
        }
        switch GadgetPlanner.bringUp(spec, udc: udc, observed: observed) {
        case let .alreadyUp(udc):
            return .alreadyUp(udc: udc)
        case let .udcBusy(udc, holder):
            throw .udcBusy(udc, heldBy: holder)
        case let .apply(steps):
            for step in steps { try perform(step) }
        }
        let function = "\(GadgetSpec.gadgetName)/functions/\(GadgetSpec.functionName)"
        let ifname = try? tree.read(paths.absolute("\(function)/ifname"))
        let interface = ifname.map(Self.trimmed).flatMap { Self.isInterfaceName($0) ? $0 : nil }
        return .bound(udc: udc, interface: interface, deviceAddress: spec.deviceAddress, hostAddress: spec.hostAddress)
    }

    /// Unbinds and removes the gadget, in the kernel's order.
    package func down() throws(GadgetError) -> GadgetReport {
        try requireConfigfs()
        guard let listing = try list() else { return .absent }
        for step in GadgetPlanner.tearDown(listing) { try perform(step) }
        return .removed(wasBound: listing.boundUDC != nil)
    }

    /// What configfs holds of the gadget now, changing nothing (`aiden-board gadget status`); the interface's
    /// carrier and addresses are the caller's to add.
    package func status() throws(GadgetError) -> GadgetStatus {
        try requireConfigfs()
        let gadget = GadgetSpec.gadgetName
        guard tree.kind(at: paths.absolute(gadget)) == .directory else {
            return GadgetStatus(gadgets: paths.gadgets, created: false)
        }
        let function = "\(gadget)/functions/\(GadgetSpec.functionName)"
        func attribute(_ name: String) -> String? {
            let path = paths.absolute("\(function)/\(name)")
            guard tree.kind(at: path) == .file, let text = try? tree.read(path) else { return nil }
            let value = Self.trimmed(text)
            return value.isEmpty ? nil : value
        }
        return GadgetStatus(
            gadgets: paths.gadgets, created: true, boundUDC: try boundUDC(of: gadget),
            interface: attribute("ifname").flatMap { Self.isInterfaceName($0) ? $0 : nil },
            deviceAddress: attribute("dev_addr").flatMap { Self.isMACText($0) ? $0 : nil },
            hostAddress: attribute("host_addr").flatMap { Self.isMACText($0) ? $0 : nil })
    }

    /// The serial number and MAC addresses this machine's gadget has.
    package func identity() throws(GadgetError) -> GadgetIdentity {
        let text: String
        do {
            text = try tree.read(paths.machineID)
        } catch {
            throw .machineID(path: paths.machineID, reason: "cannot be read (\(error))")
        }
        guard let machineID = MachineID(fileText: text) else {
            throw .machineID(
                path: paths.machineID,
                reason: "does not hold 32 hex digits (run systemd-machine-id-setup)")
        }
        return GadgetIdentity(machineID: machineID)
    }

    // MARK: Reading the tree

    private func requireConfigfs() throws(GadgetError) {
        guard tree.kind(at: paths.gadgets) == .directory else { throw .configfsMissing(path: paths.gadgets) }
    }

    private func observe(_ spec: GadgetSpec) throws(GadgetError) -> GadgetObservation {
        var observed = GadgetObservation()
        for entry in spec.entries {
            switch entry {
            case let .directory(path):
                if tree.kind(at: paths.absolute(path)) == .directory { observed.directories.insert(path) }
            case let .attribute(path, _):
                if tree.kind(at: paths.absolute(path)) == .file {
                    observed.attributes[path] = Self.trimmed(try readTree(paths.absolute(path)))
                }
            case let .link(path, _):
                if tree.kind(at: paths.absolute(path)) == .link { observed.links.insert(path) }
            }
        }
        observed.boundUDC = try boundUDC(of: GadgetSpec.gadgetName)
        for name in try listTree(paths.gadgets) where name != GadgetSpec.gadgetName {
            if let udc = try boundUDC(of: name) { observed.otherBindings[name] = udc }
        }
        return observed
    }

    private func list() throws(GadgetError) -> GadgetListing? {
        let gadget = GadgetSpec.gadgetName
        guard tree.kind(at: paths.absolute(gadget)) == .directory else { return nil }
        var listing = GadgetListing(name: gadget, boundUDC: try boundUDC(of: gadget))
        for name in try entries(in: "\(gadget)/configs", of: .directory) {
            let path = "\(gadget)/configs/\(name)"
            listing.configurations.append(
                GadgetListing.Configuration(
                    name: name, functionLinks: try entries(in: path, of: .link),
                    languages: try entries(in: "\(path)/strings", of: .directory)))
        }
        listing.functions = try entries(in: "\(gadget)/functions", of: .directory)
        listing.languages = try entries(in: "\(gadget)/strings", of: .directory)
        listing.osDescriptorLinks = try entries(in: "\(gadget)/os_desc", of: .link)
        return listing
    }

    /// Names of the given kind in a directory relative to `usb_gadget/`; none when it does not exist.
    private func entries(in relative: String, of kind: GadgetNodeKind) throws(GadgetError) -> [String] {
        let path = paths.absolute(relative)
        guard tree.kind(at: path) == .directory else { return [] }
        return try listTree(path).filter { tree.kind(at: "\(path)/\($0)") == kind }
    }

    private func boundUDC(of gadget: String) throws(GadgetError) -> String? {
        let path = paths.absolute("\(gadget)/UDC")
        guard tree.kind(at: path) == .file else { return nil }
        let name = Self.trimmed(try readTree(path))
        return name.isEmpty ? nil : name
    }

    private func readTree(_ path: String) throws(GadgetError) -> String {
        do { return try tree.read(path) } catch { throw .fileSystem(error, hint: nil) }
    }

    private func listTree(_ path: String) throws(GadgetError) -> [String] {
        do { return try tree.contents(of: path) } catch { throw .fileSystem(error, hint: nil) }
    }

    // MARK: Changing the tree

    private func perform(_ step: GadgetStep) throws(GadgetError) {
        do {
            switch step {
            case let .makeDirectory(path): try tree.makeDirectory(paths.absolute(path))
            case let .write(path, value): try tree.write(paths.absolute(path), value + "\n")
            case let .makeLink(path, target): try tree.makeLink(paths.absolute(path), target: paths.absolute(target))
            case let .removeLink(path): try tree.removeLink(paths.absolute(path))
            case let .removeDirectory(path): try tree.removeDirectory(paths.absolute(path))
            case let .bind(gadget, udc): try tree.write(paths.absolute("\(gadget)/UDC"), udc + "\n")
            case let .unbind(gadget): try tree.write(paths.absolute("\(gadget)/UDC"), "\n")
            }
        } catch {
            throw explain(error, in: step)
        }
    }

    /// Turns an errno from a step into the error a person can act on.
    private func explain(_ error: GadgetFileError, in step: GadgetStep) -> GadgetError {
        if case let .makeDirectory(path) = step, error.code == ENOENT,
            path.hasSuffix("/functions/\(GadgetSpec.functionName)")
        {
            return .functionUnavailable(path: error.path)
        }
        if case let .bind(gadget, udc) = step, error.code == EBUSY || error.code == ENODEV {
            // Recent kernels answer EBUSY both for a UDC in use and for a name no UDC has; older ones ENODEV.
            let listed = (try? tree.contents(of: paths.udcClass)) ?? []
            if !listed.contains(udc) { return .udcNotFound(udc, available: listed) }
            let holder = (try? tree.contents(of: paths.gadgets))?.first { name in
                name != gadget && (try? boundUDC(of: name)) == udc
            }
            return .udcBusy(udc, heldBy: holder)
        }
        switch error.code {
        case ENOENT: return .fileSystem(error, hint: "is \(paths.configfs) a configfs mount with libcomposite loaded?")
        case EACCES, EPERM: return .fileSystem(error, hint: "run as root (the aiden-gadget service does)")
        default: return .fileSystem(error, hint: nil)
        }
    }

    // MARK: Values

    /// An attribute's value without the trailing newline, and without the NUL some kernels put
    /// before it (6.1's u_ether prints `dev_addr` and `host_addr` as "02:a1:de:bb:8b:c1\0\n").
    static func trimmed(_ text: String) -> String {
        var result = Substring(text)
        while let last = result.last, last.isNewline || last == " " || last == "\0" { result.removeLast() }
        return String(result)
    }

    /// The names configfs accepts for a UDC, as `[gadget] udc` is validated.
    /// `02:1a:…`: six hex pairs separated by colons, as the ECM function writes its addresses.
    static func isMACText(_ text: String) -> Bool { MACAddress(text) != nil }

    static func isUDCName(_ name: String) -> Bool {
        guard !name.isEmpty, name.utf8.count <= 128, name.first != "." else { return false }
        return name.unicodeScalars.allSatisfy(isNameScalar)
    }

    private static func isNameScalar(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar {
        case "a"..."z", "A"..."Z", "0"..."9", ".", "_", ":", "-": true
        default: false
        }
    }

    /// A network interface name as the kernel makes them; not configfs's "(unnamed net_device)".
    private static func isInterfaceName(_ name: String) -> Bool {
        !name.isEmpty && name.utf8.count < 16 && !name.contains(" ") && !name.contains("/")
    }
}
