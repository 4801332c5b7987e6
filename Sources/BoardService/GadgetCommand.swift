import Configuration
import ConfigurationFiles
import Doctor
import USBGadget

/// `aiden-board gadget up|down`: the configuration's USB ids and UDC, the command line's overrides,
/// and the controller's answer as one line and an exit status (0, 69 when configfs or a UDC is
/// unavailable, 1 for anything else). Run as root by aiden-gadget.service.
package enum GadgetCommand {
    package struct Outcome: Equatable, Sendable {
        package var exitCode: Int32
        /// The line to print: on stdout when `exitCode` is 0, else on stderr.
        package var message: String
    }

    package static func run(
        up: Bool, configPath: String, explicitConfig: Bool, configfs: String?, udc: String?,
        tree: any GadgetFileTree = POSIXGadgetTree(),
        paths: GadgetPaths = GadgetPaths()
    ) -> Outcome {
        var paths = paths
        if let configfs { paths.configfs = configfs }
        let controller = GadgetController(tree: tree, paths: paths)
        do {
            guard up else { return Outcome(exitCode: 0, message: prefix + "\(try controller.down())") }
            // Only `up` needs the configuration: `down` must work even when the file was broken since.
            let gadget: BoardConfiguration.Gadget
            do {
                gadget = try BoardConfiguration.load(path: configPath).gadget
            } catch  where error.kind == .fileNotFound && !explicitConfig {
                gadget = BoardConfiguration.defaults.gadget
            } catch {
                return Outcome(exitCode: 1, message: prefix + "\(error)")
            }
            let report = try controller.up(
                vendorID: gadget.vendorID, productID: gadget.productID,
                udc: udc ?? gadget.udc)
            return Outcome(exitCode: 0, message: prefix + "\(report)")
        } catch {
            return Outcome(exitCode: error.exitCode, message: prefix + "\(error)")
        }
    }

    /// `aiden-board gadget status`: what the gadget is, read-only. Exit 0 when it is up (created and bound), 3 when
    /// it is not (`GadgetStatus.notUpExitCode`), 69 when configfs is not mounted, 1 when configfs cannot be read.
    /// The report goes to stdout whatever the status; a failure to read goes to stderr.
    package static func status(
        configfs: String?, tree: any GadgetFileTree = POSIXGadgetTree(), paths: GadgetPaths = GadgetPaths(),
        interfaces: @Sendable () -> LocalInterfaces = { .current() }
    ) -> Outcome {
        var paths = paths
        if let configfs { paths.configfs = configfs }
        var status: GadgetStatus
        do {
            status = try GadgetController(tree: tree, paths: paths).status()
        } catch {
            return Outcome(exitCode: error.exitCode, message: prefix + "\(error)")
        }
        if let name = status.interface {
            let entries = interfaces().entries.filter { $0.name == name }
            status.addresses = entries.map { "\($0.address)/\($0.prefixLength)" }
            // An interface without an address is not in getifaddrs' AF_INET entries: sysfs says whether it has carrier.
            status.carrier =
                entries.first.map(\.isRunning)
                ?? (try? tree.read("/sys/class/net/\(name)/carrier")).flatMap {
                    switch $0.filter({ !$0.isWhitespace }) {
                    case "1": true
                    case "0": false
                    default: nil
                    }
                }
        }
        return Outcome(exitCode: status.exitCode, message: status.lines.joined(separator: "\n"))
    }

    /// `gadget status`'s exit status for a gadget that is not up (its report still goes to stdout).
    package static let notUpExitCode = GadgetStatus.notUpExitCode

    private static let prefix = "aiden-board gadget: "
}
