import Glibc

/// The real file system through POSIX calls: every call retried on EINTR, every failure
/// reported with its errno and path.
package struct POSIXFileSystem: DurableFileSystem {
    package init() {}

    package func writeFile(at path: String, contents: [UInt8], permissions: UInt16) throws(FileSystemError) {
        let fd = try open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, permissions: permissions)
        var closed = false
        defer { if !closed { _ = close(fd) } }
        // O_CREAT's mode is filtered by the umask and ignored for an existing file (a leftover
        // temporary); set the permissions explicitly.
        guard retryingOnInterrupt({ fchmod(fd, mode_t(permissions)) }) == 0 else {
            throw FileSystemError(.fchmod, path: path, code: errno)
        }
        let failure: FileSystemError? = contents.withUnsafeBytes { buffer in
            guard let base = buffer.baseAddress else { return nil }
            var offset = 0
            while offset < buffer.count {
                let written = retryingOnInterrupt { write(fd, base + offset, buffer.count - offset) }
                guard written > 0 else { return FileSystemError(.write, path: path, code: written < 0 ? errno : EIO) }
                offset += written
            }
            return nil
        }
        if let failure { throw failure }
        closed = true
        // close can report a deferred write error; EINTR still closes the descriptor on Linux.
        if close(fd) != 0, errno != EINTR { throw FileSystemError(.close, path: path, code: errno) }
    }

    package func synchronizeFile(at path: String) throws(FileSystemError) {
        try synchronize(path, flags: O_RDONLY | O_CLOEXEC)
    }

    package func rename(from source: String, to destination: String) throws(FileSystemError) {
        guard retryingOnInterrupt({ Glibc.rename(source, destination) }) == 0 else {
            throw FileSystemError(.rename, path: source, destination: destination, code: errno)
        }
    }

    package func synchronizeDirectory(at path: String) throws(FileSystemError) {
        try synchronize(path, flags: O_RDONLY | O_DIRECTORY | O_CLOEXEC)
    }

    package func readFile(at path: String) throws(FileSystemError) -> [UInt8] {
        let fd = try open(path, O_RDONLY | O_CLOEXEC, permissions: 0)
        defer { _ = close(fd) }
        var result: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = chunk.withUnsafeMutableBytes { buffer in
                retryingOnInterrupt { read(fd, buffer.baseAddress, buffer.count) }
            }
            guard count >= 0 else { throw FileSystemError(.read, path: path, code: errno) }
            if count == 0 { return result }
            result.append(contentsOf: chunk[0..<count])
        }
    }

    package func removeFile(at path: String) throws(FileSystemError) {
        guard retryingOnInterrupt({ unlink(path) }) == 0 else {
            throw FileSystemError(.unlink, path: path, code: errno)
        }
    }

    package func fileExists(at path: String) -> Bool {
        var info = stat()
        return retryingOnInterrupt { stat(path, &info) } == 0
    }

    package func createDirectory(at path: String, permissions: UInt16) throws(FileSystemError) {
        for directory in PathSyntax.directoryPrefixes(of: path) {
            if retryingOnInterrupt({ mkdir(directory, mode_t(permissions)) }) == 0 {
                // The new entry lives in the parent; make it survive a crash.
                try synchronizeDirectory(at: PathSyntax.parentDirectory(of: directory))
                continue
            }
            let code = errno
            guard code == EEXIST else { throw FileSystemError(.mkdir, path: directory, code: code) }
            var info = stat()
            guard retryingOnInterrupt({ stat(directory, &info) }) == 0 else {
                throw FileSystemError(.stat, path: directory, code: errno)
            }
            guard info.st_mode & S_IFMT == S_IFDIR else {
                throw FileSystemError(.mkdir, path: directory, code: ENOTDIR)
            }
        }
    }

    /// The names in a directory (symbolic links followed, `.` and `..` left out), in no particular order:
    /// for reading trees like sysfs. Not part of `DurableFileSystem`: nothing durable lists directories.
    package func contentsOfDirectory(at path: String) throws(FileSystemError) -> [String] {
        guard let directory = opendir(path) else { throw FileSystemError(.opendir, path: path, code: errno) }
        defer { closedir(directory) }
        var names: [String] = []
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }

    /// Whether this process's real user may read and write `path` (access(2) with R_OK | W_OK).
    package func checkReadableAndWritable(at path: String) throws(FileSystemError) {
        guard Glibc.access(path, R_OK | W_OK) == 0 else { throw FileSystemError(.access, path: path, code: errno) }
    }

    /// Whether this process's real user may create and remove entries in the directory `path` (access(2)
    /// with W_OK | X_OK): what a daemon needs of its state directory, asked by the doctors.
    package func checkWritableDirectory(at path: String) throws(FileSystemError) {
        guard Glibc.access(path, W_OK | X_OK) == 0 else { throw FileSystemError(.access, path: path, code: errno) }
    }

    /// Makes `path` a directory only this user may use (mode 0700), unless it is one already: per-user state in a
    /// shared place (aidenctl's hook state under /tmp) must not live in a directory someone else made for us.
    /// Fails with EEXIST when something else is there (or a symbolic link), EPERM when the directory is another
    /// user's or open to others.
    package func makePrivateDirectory(at path: String) throws(FileSystemError) {
        if retryingOnInterrupt({ mkdir(path, 0o700) }) != 0 && errno != EEXIST {
            throw FileSystemError(.mkdir, path: path, code: errno)
        }
        var info = stat()
        guard retryingOnInterrupt({ lstat(path, &info) }) == 0 else {
            throw FileSystemError(.stat, path: path, code: errno)
        }
        guard info.st_mode & S_IFMT == S_IFDIR else { throw FileSystemError(.mkdir, path: path, code: EEXIST) }
        guard info.st_uid == getuid(), info.st_mode & 0o077 == 0 else {
            throw FileSystemError(.mkdir, path: path, code: EPERM)
        }
    }

    private func open(_ path: String, _ flags: Int32, permissions: UInt16) throws(FileSystemError) -> Int32 {
        let fd = retryingOnInterrupt { Glibc.open(path, flags, mode_t(permissions)) }
        guard fd >= 0 else { throw FileSystemError(.open, path: path, code: errno) }
        return fd
    }

    private func synchronize(_ path: String, flags: Int32) throws(FileSystemError) {
        let fd = try open(path, flags, permissions: 0)
        defer { _ = close(fd) }
        guard retryingOnInterrupt({ fsync(fd) }) == 0 else { throw FileSystemError(.fsync, path: path, code: errno) }
    }
}

/// Repeats a call that failed with EINTR (a signal arrived), as every POSIX caller must.
private func retryingOnInterrupt<Result: BinaryInteger>(_ call: () -> Result) -> Result {
    while true {
        let result = call()
        if result != -1 || errno != EINTR { return result }
    }
}
