import Glibc

/// An exclusive lock on a file (flock(2)), held while this value lives. The board holds one in its state
/// directory for the daemon's whole life, so a second board on the same directory is refused at start instead
/// of interleaving its writes with the first one's and reusing its Wake sequences.
///
/// The kernel drops the lock when the descriptor closes, and so when the process dies however it dies
/// (kill -9 included): a lock is never stale, and a restart never waits for one. The holder writes its pid into
/// the file so that a refused process can name it; the pid is only reported when that process is alive, since
/// a holder that has just taken the lock may not have written over a dead one's pid yet.
package final class FileLock: Sendable {
    package let path: String
    private let descriptor: Int32

    private init(path: String, descriptor: Int32) {
        self.path = path
        self.descriptor = descriptor
    }

    deinit { close(descriptor) }

    /// Takes the lock at once or fails: `.held` when another process holds it (with its pid, if known).
    /// Creates the file (with `permissions`) when it does not exist.
    package static func acquire(_ path: String, permissions: UInt16 = 0o600) throws(FileLockError) -> FileLock {
        // The descriptor held is read-only, so the state directory can still be remounted read-only under a
        // running board (an open writable file makes the kernel refuse that as "busy"); flock does not care.
        let fd = retrying { open(path, O_RDONLY | O_CREAT | O_CLOEXEC | O_NOFOLLOW, mode_t(permissions)) }
        guard fd >= 0 else { throw .failed(FileSystemError(.open, path: path, code: errno)) }
        guard retrying({ flock(fd, LOCK_EX | LOCK_NB) }) == 0 else {
            let code = errno
            defer { close(fd) }
            guard code == EWOULDBLOCK else { throw .failed(FileSystemError(.flock, path: path, code: code)) }
            throw .held(path: path, holder: livingHolder(fd))
        }
        // Who holds it, for the next one refused. Not synced: the lock does not outlive this process either.
        let pid = Array("\(getpid())\n".utf8)
        let writer = retrying { open(path, O_WRONLY | O_TRUNC | O_CLOEXEC | O_NOFOLLOW) }
        if writer >= 0 {
            _ = pid.withUnsafeBytes { pwrite(writer, $0.baseAddress, $0.count, 0) }
            close(writer)
        }
        return FileLock(path: path, descriptor: fd)
    }

    /// The pid the holder wrote, when it names a process that exists.
    private static func livingHolder(_ fd: Int32) -> Int32? {
        var buffer = [UInt8](repeating: 0, count: 32)
        let count = buffer.withUnsafeMutableBytes { pread(fd, $0.baseAddress, $0.count, 0) }
        guard count > 0 else { return nil }
        let text = String(decoding: buffer.prefix(count), as: UTF8.self).filter { !$0.isWhitespace }
        guard let pid = Int32(text), pid > 0 else { return nil }
        // Signal 0 checks only that the process exists; EPERM says it exists under another user.
        guard kill(pid, 0) == 0 || errno == EPERM else { return nil }
        return pid
    }

    private static func retrying(_ call: () -> Int32) -> Int32 {
        while true {
            let result = call()
            if result != -1 || errno != EINTR { return result }
        }
    }
}
