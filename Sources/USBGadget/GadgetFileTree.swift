#if canImport(Glibc)
import Glibc
#endif

/// The file operations the gadget needs from configfs, as a seam: `POSIXGadgetTree` on the real
/// tree; tests use a temporary directory behind an emulator of the kernel's side effects.
/// Paths are absolute.
package protocol GadgetFileTree: Sendable {
    /// What is at `path` (not following a final symbolic link); nil when nothing is.
    func kind(at path: String) -> GadgetNodeKind?
    /// The names in a directory, sorted, without `.` and `..`.
    func contents(of directory: String) throws(GadgetFileError) -> [String]
    func read(_ path: String) throws(GadgetFileError) -> String
    /// Replaces the contents of an existing file in one write; never creates one (configfs
    /// attributes exist or do not, and a missing one must be reported, not invented).
    func write(_ path: String, _ text: String) throws(GadgetFileError)
    func makeDirectory(_ path: String) throws(GadgetFileError)
    func removeDirectory(_ path: String) throws(GadgetFileError)
    func makeLink(_ path: String, target: String) throws(GadgetFileError)
    func removeLink(_ path: String) throws(GadgetFileError)
}

package enum GadgetNodeKind: Equatable, Sendable {
    case directory, file, link
}

/// A failed call on the gadget tree: which call, on which path, and errno.
package struct GadgetFileError: Error, Equatable, Sendable, CustomStringConvertible {
    package enum Operation: String, Sendable {
        case list, read, write, mkdir, rmdir, symlink, unlink
    }

    package var operation: Operation
    package var path: String
    package var code: Int32

    package init(_ operation: Operation, path: String, code: Int32) {
        self.operation = operation
        self.path = path
        self.code = code
    }

    package var description: String {
        "\(operation.rawValue) \(path): \(String(cString: strerror(code))) (errno \(code))"
    }
}
