import Foundation
import Testing

/// `aiden-board gadget` as a process: the messages and exit codes aiden-gadget.service sees.
@Suite struct GadgetProcessTests {
    static func board(_ arguments: [String]) throws -> CommandResult {
        let products = try #require(Repository.productsDirectory)
        return try run("\(products)/aiden-board", arguments, timeoutSeconds: 30)
    }

    @Test func missingConfigfsExits69WithTheFix() throws {
        let scratch = try Scratch()
        let up = try Self.board(["gadget", "up", "--configfs", scratch.path])
        #expect(up.status == 69)
        #expect(
            up.error == "aiden-board gadget: configfs usb_gadget not found at \(scratch.path)/usb_gadget: load "
                + "libcomposite (modprobe libcomposite) and mount configfs "
                + "(mount -t configfs none /sys/kernel/config)\n")
        #expect(up.output.isEmpty)
        let down = try Self.board(["gadget", "down", "--configfs", scratch.path])
        #expect(down.status == 69)
    }

    @Test func downWithNothingThereIsFine() throws {
        let scratch = try Scratch()
        try FileManager.default.createDirectory(atPath: "\(scratch.path)/usb_gadget", withIntermediateDirectories: true)
        let result = try Self.board(["gadget", "down", "--configfs", scratch.path])
        #expect(result.status == 0)
        #expect(result.output == "aiden-board gadget: gadget aiden is not set up: nothing to do\n")
    }

    @Test func aDirectoryThatIsNotConfigfsIsReportedAtTheFirstAttribute() throws {
        let scratch = try Scratch()
        try FileManager.default.createDirectory(atPath: "\(scratch.path)/usb_gadget", withIntermediateDirectories: true)
        let result = try Self.board(["gadget", "up", "--configfs", scratch.path, "--udc", "dummy_udc.0"])
        #expect(result.status == 1)
        #expect(result.error.contains("write \(scratch.path)/usb_gadget/aiden/idVendor: No such file or directory"))
        #expect(result.error.contains("is \(scratch.path) a configfs mount with libcomposite loaded?"))
    }

    @Test func anExplicitConfigurationThatIsMissingExits1() throws {
        let scratch = try Scratch()
        try FileManager.default.createDirectory(atPath: "\(scratch.path)/usb_gadget", withIntermediateDirectories: true)
        let result = try Self.board(["gadget", "up", "--configfs", scratch.path, "--config", "\(scratch.path)/b.toml"])
        #expect(result.status == 1)
        #expect(result.error == "aiden-board gadget: \(scratch.path)/b.toml: no such file\n")
    }

    @Test func usageErrorsExit64() throws {
        let result = try Self.board(["gadget", "sideways"])
        #expect(result.status == 64)
    }
}
