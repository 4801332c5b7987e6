import Foundation
import Testing

@testable import USBGadget

/// The real seam on a temporary directory: what the emulator builds on.
@Suite struct POSIXGadgetTreeTests {
    let tree = POSIXGadgetTree()

    func scratch() throws -> String {
        let path = FileManager.default.temporaryDirectory
            .appendingPathComponent("aiden-tree-\(UUID().uuidString.prefix(8))").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    @Test func writeReplacesAnExistingFileButNeverCreatesOne() throws {
        let root = try scratch()
        defer { try? FileManager.default.removeItem(atPath: root) }
        #expect(throws: GadgetFileError(.write, path: "\(root)/idVendor", code: ENOENT)) {
            try tree.write("\(root)/idVendor", "0x1d6b\n")
        }
        #expect(tree.kind(at: "\(root)/idVendor") == nil)
        let old = Data("0x0000-long-old-value\n".utf8)
        #expect(FileManager.default.createFile(atPath: "\(root)/idVendor", contents: old))
        try tree.write("\(root)/idVendor", "0x1d6b\n")
        #expect(try tree.read("\(root)/idVendor") == "0x1d6b\n")
    }

    @Test func directoriesLinksAndListing() throws {
        let root = try scratch()
        defer { try? FileManager.default.removeItem(atPath: root) }
        try tree.makeDirectory("\(root)/b")
        try tree.makeDirectory("\(root)/a")
        try tree.makeLink("\(root)/l", target: "\(root)/a")
        #expect(try tree.contents(of: root) == ["a", "b", "l"])
        #expect(tree.kind(at: "\(root)/a") == .directory)
        #expect(tree.kind(at: "\(root)/l") == .link)
        #expect(tree.kind(at: "\(root)/none") == nil)
        #expect(throws: GadgetFileError(.mkdir, path: "\(root)/a", code: EEXIST)) {
            try tree.makeDirectory("\(root)/a")
        }
        try tree.removeLink("\(root)/l")
        try tree.removeDirectory("\(root)/a")
        #expect(try tree.contents(of: root) == ["b"])
        #expect(throws: GadgetFileError(.list, path: "\(root)/none", code: ENOENT)) {
            try tree.contents(of: "\(root)/none")
        }
        #expect(throws: GadgetFileError(.rmdir, path: "\(root)/none", code: ENOENT)) {
            try tree.removeDirectory("\(root)/none")
        }
        #expect(
            GadgetFileError(.rmdir, path: "/x", code: ENOENT).description
                == "rmdir /x: No such file or directory (errno 2)")
    }
}
