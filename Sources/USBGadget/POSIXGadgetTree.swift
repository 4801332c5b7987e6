#if canImport(Glibc)
import Glibc
#endif

/// The gadget tree through POSIX calls, EINTR retried.
package struct POSIXGadgetTree: GadgetFileTree {
    package init() {}

    package func kind(at path: String) -> GadgetNodeKind? {
        var info = stat()
        guard lstat(path, &info) == 0 else { return nil }
        switch info.st_mode & S_IFMT {
        case S_IFDIR: return .directory
        case S_IFLNK: return .link
        default: return .file
        }
    }

    package func contents(of directory: String) throws(GadgetFileError) -> [String] {
        guard let stream = opendir(directory) else { throw GadgetFileError(.list, path: directory, code: errno) }
        defer { closedir(stream) }
        var names: [String] = []
        while let entry = readdir(stream) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names.sorted()
    }

    package func read(_ path: String) throws(GadgetFileError) -> String {
        let fd = try open(path, O_RDONLY | O_CLOEXEC, operation: .read)
        defer { close(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = chunk.withUnsafeMutableBytes { buffer in
                retrying { Glibc.read(fd, buffer.baseAddress, buffer.count) }
            }
            guard count >= 0 else { throw GadgetFileError(.read, path: path, code: errno) }
            if count == 0 { return String(decoding: bytes, as: UTF8.self) }
            bytes += chunk[0..<count]
        }
    }

    package func write(_ path: String, _ text: String) throws(GadgetFileError) {
        let fd = try open(path, O_WRONLY | O_TRUNC | O_CLOEXEC, operation: .write)
        // configfs hands each write(2) to the attribute's store function: the value goes in one call.
        let bytes = Array(text.utf8)
        let written = bytes.withUnsafeBytes { buffer in retrying { Glibc.write(fd, buffer.baseAddress, buffer.count) } }
        let code = written < 0 ? errno : (written == bytes.count ? 0 : EIO)
        // configfs reports some store errors only at close.
        if close(fd) != 0, code == 0, errno != EINTR { throw GadgetFileError(.write, path: path, code: errno) }
        if code != 0 { throw GadgetFileError(.write, path: path, code: code) }
    }

    package func makeDirectory(_ path: String) throws(GadgetFileError) {
        guard retrying({ mkdir(path, 0o755) }) == 0 else { throw GadgetFileError(.mkdir, path: path, code: errno) }
    }

    package func removeDirectory(_ path: String) throws(GadgetFileError) {
        guard retrying({ rmdir(path) }) == 0 else { throw GadgetFileError(.rmdir, path: path, code: errno) }
    }

    package func makeLink(_ path: String, target: String) throws(GadgetFileError) {
        guard retrying({ symlink(target, path) }) == 0 else {
            throw GadgetFileError(.symlink, path: path, code: errno)
        }
    }

    package func removeLink(_ path: String) throws(GadgetFileError) {
        guard retrying({ unlink(path) }) == 0 else { throw GadgetFileError(.unlink, path: path, code: errno) }
    }

    private func open(
        _ path: String, _ flags: Int32, operation: GadgetFileError.Operation
    )
        throws(GadgetFileError) -> Int32
    {
        let fd = retrying { Glibc.open(path, flags) }
        guard fd >= 0 else { throw GadgetFileError(operation, path: path, code: errno) }
        return fd
    }

    private func retrying<T: BinaryInteger>(_ call: () -> T) -> T {
        while true {
            let result = call()
            if result >= 0 || errno != EINTR { return result }
        }
    }
}
