import Foundation
import Synchronization

@testable import USBGadget

/// A temporary directory laid out like configfs, /sys/class/udc and /etc/machine-id, behind
/// `POSIXGadgetTree`, with the kernel's side of configfs emulated on top: `mkdir` of a gadget,
/// strings, configuration or function directory creates the attribute files and default groups
/// the kernel would; `rmdir` takes them away but refuses a directory that still holds what the
/// user made (ENOTEMPTY), a function a configuration links to, or a bound gadget (EBUSY); writing
/// `UDC` binds like the kernel does (EBUSY for a missing, held or taken UDC) and names the ECM
/// interface. Every change is recorded in `journal`, relative to `usb_gadget/`.
final class ConfigfsEmulator: GadgetFileTree, Sendable {
    let root: String
    let paths: GadgetPaths
    private let posix = POSIXGadgetTree()
    private let state: Mutex<State>

    private struct State {
        var journal: [String] = []
        /// Function types the "kernel" has (mkdir of another type fails with ENOENT).
        var functionTypes: Set<String> = ["ecm", "acm"]
        /// UDCs a driver outside configfs holds (a legacy g_ether): binding them answers EBUSY.
        var heldUDCs: Set<String> = []
        /// errno to answer for the next change to a path relative to usb_gadget/.
        var failures: [String: Int32] = [:]
    }

    /// - Parameters:
    ///   - udcs: entries of the fake /sys/class/udc; nil leaves the directory out.
    ///   - configfs: whether `usb_gadget/` exists (libcomposite loaded).
    init(
        udcs: [String]? = ["dummy_udc.0"], machineID: String? = "0123456789abcdef0123456789abcdef\n",
        configfs: Bool = true
    ) throws {
        let base = FileManager.default.temporaryDirectory
            .appendingPathComponent("aiden-configfs-\(UUID().uuidString.prefix(8))").path
        root = base
        paths = GadgetPaths(configfs: "\(base)/config", udcClass: "\(base)/class/udc", machineID: "\(base)/machine-id")
        state = Mutex(State())
        let files = FileManager.default
        try files.createDirectory(atPath: paths.configfs, withIntermediateDirectories: true)
        if configfs { try files.createDirectory(atPath: paths.gadgets, withIntermediateDirectories: true) }
        if let udcs {
            try files.createDirectory(atPath: paths.udcClass, withIntermediateDirectories: true)
            for udc in udcs {
                try files.createDirectory(atPath: "\(paths.udcClass)/\(udc)", withIntermediateDirectories: true)
            }
        }
        if let machineID { try machineID.write(toFile: paths.machineID, atomically: true, encoding: .utf8) }
    }

    deinit { try? FileManager.default.removeItem(atPath: root) }

    var journal: [String] { state.withLock { $0.journal } }
    func clearJournal() { state.withLock { $0.journal = [] } }
    func hold(_ udc: String) { state.withLock { _ = $0.heldUDCs.insert(udc) } }
    func removeFunctionType(_ type: String) { state.withLock { _ = $0.functionTypes.remove(type) } }
    func fail(_ relative: String, with code: Int32) { state.withLock { $0.failures[relative] = code } }

    /// The file's contents as the kernel would show them (what was last written).
    func value(_ relative: String) -> String? {
        try? String(contentsOfFile: paths.absolute(relative), encoding: .utf8)
    }

    // MARK: GadgetFileTree

    func kind(at path: String) -> GadgetNodeKind? { posix.kind(at: path) }
    func contents(of directory: String) throws(GadgetFileError) -> [String] { try posix.contents(of: directory) }
    func read(_ path: String) throws(GadgetFileError) -> String { try posix.read(path) }

    func write(_ path: String, _ text: String) throws(GadgetFileError) {
        let relative = try change(path, "write", text.trimmingCharacters(in: .newlines), .write)
        let parts = relative.split(separator: "/").map(String.init)
        if parts.count == 2, parts[1] == "UDC" {
            return try bind(gadget: parts[0], udc: text.trimmingCharacters(in: .whitespacesAndNewlines), path: path)
        }
        // u_ether refuses new settings while a configuration links the function (opts->refcnt).
        if parts.count == 4, parts[1] == "functions", isLinked(gadget: parts[0], function: parts[2]) {
            throw GadgetFileError(.write, path: path, code: EBUSY)
        }
        if parts.last == "dev_addr" || parts.last == "host_addr" {
            let value = text.trimmingCharacters(in: .newlines)
            let octets = value.split(separator: ":")
            guard octets.count == 6, octets.allSatisfy({ $0.count == 2 && UInt8($0, radix: 16) != nil }) else {
                throw GadgetFileError(.write, path: path, code: EINVAL)
            }
            // Linux 6.1 reads these back with a NUL before the newline.
            return try posix.write(path, value.lowercased() + "\0\n")
        }
        try posix.write(path, text)
    }

    func makeDirectory(_ path: String) throws(GadgetFileError) {
        let relative = try change(path, "mkdir", nil, .mkdir)
        let parts = relative.split(separator: "/").map(String.init)
        var files: [String: String] = [:]
        var groups: [String] = []
        switch parts.count {
        case 1:
            files = [
                "idVendor": "0x0000", "idProduct": "0x0000", "bcdDevice": "0x0000", "bcdUSB": "0x0000",
                "bDeviceClass": "0x00", "UDC": "", "max_speed": "super-speed-plus",
            ]
            groups = ["configs", "functions", "strings", "os_desc"]
        case 3 where parts[1] == "strings":
            files = ["manufacturer": "", "product": "", "serialnumber": ""]
        case 3 where parts[1] == "configs":
            guard parts[2].split(separator: ".").count == 2 else {
                throw GadgetFileError(.mkdir, path: path, code: EINVAL)
            }
            files = ["MaxPower": "500", "bmAttributes": "0x80"]
            groups = ["strings"]
        case 5 where parts[1] == "configs" && parts[3] == "strings":
            files = ["configuration": ""]
        case 3 where parts[1] == "functions":
            let type = String(parts[2].prefix { $0 != "." })
            guard state.withLock({ $0.functionTypes.contains(type) }) else {
                throw GadgetFileError(.mkdir, path: path, code: ENOENT)
            }
            files = [
                "dev_addr": "5e:11:22:33:44:55\0", "host_addr": "5e:11:22:33:44:66\0",
                "ifname": "(unnamed net_device)", "qmult": "5",
            ]
        default:
            throw GadgetFileError(.mkdir, path: path, code: EPERM)
        }
        try posix.makeDirectory(path)
        for group in groups { try posix.makeDirectory("\(path)/\(group)") }
        for (name, value) in files { try create("\(path)/\(name)", value) }
    }

    func removeDirectory(_ path: String) throws(GadgetFileError) {
        let relative = try change(path, "rmdir", nil, .rmdir)
        let parts = relative.split(separator: "/").map(String.init)
        let own = Set(kernelMade(parts))
        var busy = !list(path).filter { !own.contains($0) }.isEmpty
        if parts.count == 1 {
            if bound(parts[0]) != nil { throw GadgetFileError(.rmdir, path: path, code: EBUSY) }
            busy =
                busy || ["configs", "functions", "strings"].contains { !list("\(path)/\($0)").isEmpty }
                || list("\(path)/os_desc").contains { posix.kind(at: "\(path)/os_desc/\($0)") == .link }
        }
        if parts.count == 3, parts[1] == "configs", !list("\(path)/strings").isEmpty {
            busy = true
        }
        if busy { throw GadgetFileError(.rmdir, path: path, code: ENOTEMPTY) }
        if parts.count == 3, parts[1] == "functions", isLinked(gadget: parts[0], function: parts[2]) {
            throw GadgetFileError(.rmdir, path: path, code: EBUSY)
        }
        do {
            try FileManager.default.removeItem(atPath: path)
        } catch {
            throw GadgetFileError(.rmdir, path: path, code: EIO)
        }
    }

    func makeLink(_ path: String, target: String) throws(GadgetFileError) {
        let relative = try change(path, "link", "-> " + target, .symlink)
        let parts = relative.split(separator: "/").map(String.init)
        guard parts.count == 4, parts[1] == "configs", posix.kind(at: target) == .directory,
            target.contains("/functions/")
        else {
            throw GadgetFileError(.symlink, path: path, code: EPERM)
        }
        try posix.makeLink(path, target: target)
    }

    func removeLink(_ path: String) throws(GadgetFileError) {
        _ = try change(path, "rm", nil, .unlink)
        try posix.removeLink(path)
    }

    // MARK: Emulation

    /// Records a change, answers an injected failure, and returns the path relative to usb_gadget/.
    private func change(
        _ path: String, _ verb: String, _ detail: String?,
        _ operation: GadgetFileError.Operation
    ) throws(GadgetFileError) -> String {
        let prefix = paths.gadgets + "/"
        guard path.hasPrefix(prefix) else { throw GadgetFileError(operation, path: path, code: EPERM) }
        let relative = String(path.dropFirst(prefix.count))
        let shown =
            detail.map { text in
                " " + (text.isEmpty ? "\"\"" : text.replacingOccurrences(of: paths.gadgets + "/", with: ""))
            } ?? ""
        let failure = state.withLock { state -> Int32? in
            state.journal.append("\(verb) \(relative)\(shown)")
            return state.failures.removeValue(forKey: relative)
        }
        if let failure { throw GadgetFileError(operation, path: path, code: failure) }
        return relative
    }

    private func bind(gadget: String, udc: String, path: String) throws(GadgetFileError) {
        if udc.isEmpty {
            try posix.write(path, "\n")
            return
        }
        let listed = (try? posix.contents(of: paths.udcClass)) ?? []
        let takenByOther = list(paths.gadgets).contains { $0 != gadget && bound($0) == udc }
        let held = state.withLock { $0.heldUDCs.contains(udc) }
        guard bound(gadget) == nil, listed.contains(udc), !takenByOther, !held else {
            throw GadgetFileError(.write, path: path, code: EBUSY)
        }
        try posix.write(path, udc + "\n")
        let configs = paths.absolute("\(gadget)/configs")
        for configuration in (try? posix.contents(of: configs)) ?? [] {
            for name in (try? posix.contents(of: "\(configs)/\(configuration)")) ?? []
            where name.hasPrefix("ecm.") && posix.kind(at: "\(configs)/\(configuration)/\(name)") == .link {
                try posix.write(paths.absolute("\(gadget)/functions/\(name)/ifname"), "usb0\n")
            }
        }
    }

    /// A directory's names; none when it cannot be listed.
    private func list(_ path: String) -> [String] { (try? posix.contents(of: path)) ?? [] }

    private func bound(_ gadget: String) -> String? {
        let value = (try? posix.read(paths.absolute("\(gadget)/UDC")))?.trimmingCharacters(in: .whitespacesAndNewlines)
        return value?.isEmpty == false ? value : nil
    }

    private func isLinked(gadget: String, function: String) -> Bool {
        let configs = paths.absolute("\(gadget)/configs")
        return ((try? posix.contents(of: configs)) ?? []).contains { configuration in
            posix.kind(at: "\(configs)/\(configuration)/\(function)") == .link
        }
    }

    /// What the kernel put in a directory of this shape (gone with it at rmdir).
    private func kernelMade(_ parts: [String]) -> [String] {
        switch parts.count {
        case 1:
            [
                "idVendor", "idProduct", "bcdDevice", "bcdUSB", "bDeviceClass", "UDC", "max_speed",
                "configs", "functions", "strings", "os_desc",
            ]
        case 3 where parts[1] == "strings": ["manufacturer", "product", "serialnumber"]
        case 3 where parts[1] == "configs": ["MaxPower", "bmAttributes", "strings"]
        case 5: ["configuration"]
        case 3 where parts[1] == "functions": ["dev_addr", "host_addr", "ifname", "qmult"]
        default: []
        }
    }

    private func create(_ path: String, _ value: String) throws(GadgetFileError) {
        guard FileManager.default.createFile(atPath: path, contents: Data((value + "\n").utf8)) else {
            throw GadgetFileError(.write, path: path, code: EIO)
        }
    }
}
