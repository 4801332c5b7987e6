import Configuration
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

    private static let prefix = "aiden-board gadget: "
}
