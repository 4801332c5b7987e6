#if canImport(Glibc)
import Glibc
#endif

/// Keeps a daemon's resident memory to the pages it uses. Most of a daemon's RSS is file pages: its statically
/// linked binary and its libraries, which the kernel maps 64 KiB at a time around each page fault (fault-around),
/// so start-up alone leaves megabytes of code resident that the daemon never runs again. Once it has started, just
/// before it says READY=1, `trim()` drops (`MADV_DONTNEED`) the pages of every mapping that holds only the file's
/// own bytes and cannot be written (code, constants). Nothing is lost: the pages come back from the page cache (or
/// the file) on the next touch, exactly as they were. `MADV_DONTNEED` would also throw away a page of a mapping's
/// own (copied on write, as relocations are, in memory or in swap), so a mapping with any such page is left alone;
/// and it acts on whatever is mapped at the address when it is called, so it is called only once the daemon is up,
/// when nothing unmaps a library any more (the daemons load none after start-up and never unload one).
package enum ResidentSet {
    /// One mapping in `/proc/self/smaps`, as far as trimming needs it.
    package struct Mapping: Equatable, Sendable {
        package var start: UInt
        package var end: UInt
        /// As the kernel shows them: `r-xp`, `r--p`, `rw-p`, …
        package var permissions: String
        /// The file, or a pseudo-name (`[heap]`, `[vdso]`), or "" for anonymous memory.
        package var path: String
        /// Pages of it that are no longer the file's (copied on write, as relocations are), in kilobytes: in memory
        /// (`Anonymous:`) and in swap (`Swap:`); `Int.max` until the mapping's own line says.
        package var anonymousKilobytes: Int
        package var swapKilobytes: Int

        package init(
            start: UInt, end: UInt, permissions: String, path: String, anonymousKilobytes: Int = .max,
            swapKilobytes: Int = .max
        ) {
            self.start = start
            self.end = end
            self.permissions = permissions
            self.path = path
            self.anonymousKilobytes = anonymousKilobytes
            self.swapKilobytes = swapKilobytes
        }

        /// Dropping its pages loses nothing: a private mapping of a regular file that cannot be written and holds
        /// no page of its own, in memory or in swap (a relocated page is one, so is every page of a writable
        /// mapping), so every page is the file's and comes back as it was.
        package var isTrimmable: Bool {
            let flags = Array(permissions.utf8)
            guard flags.count == 4, flags[0] == UInt8(ascii: "r"), flags[1] == UInt8(ascii: "-"),
                flags[3] == UInt8(ascii: "p")
            else { return false }
            return anonymousKilobytes == 0 && swapKilobytes == 0 && path.hasPrefix("/") && !path.hasPrefix("/dev/")
                && !path.hasPrefix("/memfd:") && !path.hasSuffix(" (deleted)")
        }
    }

    /// The mappings in the text of `/proc/PID/smaps`; lines it does not know are skipped.
    package static func mappings(smaps text: String) -> [Mapping] {
        var found: [Mapping] = []
        for line in text.split(separator: "\n", omittingEmptySubsequences: true) {
            if line.hasPrefix("Anonymous:") || line.hasPrefix("Swap:") {
                guard !found.isEmpty else { continue }
                let kilobytes = line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first
                let value = kilobytes.flatMap { Int($0) } ?? .max
                if line.hasPrefix("Swap:") {
                    found[found.count - 1].swapKilobytes = value
                } else {
                    found[found.count - 1].anonymousKilobytes = value
                }
                continue
            }
            // A mapping's first line: `start-end perms offset dev inode [path]`; field lines start with a name and
            // a colon.
            let fields = line.split(separator: " ", maxSplits: 5, omittingEmptySubsequences: true)
            guard fields.count >= 5, let dash = fields[0].firstIndex(of: "-"),
                let start = UInt(fields[0][..<dash], radix: 16),
                let end = UInt(fields[0][fields[0].index(after: dash)...], radix: 16)
            else { continue }
            let path = fields.count == 6 ? String(fields[5].drop { $0 == " " }) : ""
            // Until its own `Anonymous:` and `Swap:` lines say otherwise, a mapping is taken to hold pages of its own.
            found.append(Mapping(start: start, end: end, permissions: String(fields[1]), path: path))
        }
        return found
    }

    /// Drops this process's trimmable pages (`Mapping.isTrimmable`). Returns how many bytes of mappings it trimmed
    /// (0 when `/proc/self/smaps` could not be read).
    @discardableResult
    package static func trim() -> Int {
        guard let text = readSmaps() else { return 0 }
        var trimmed = 0
        for mapping in mappings(smaps: text) where mapping.isTrimmable {
            guard let address = UnsafeMutableRawPointer(bitPattern: mapping.start) else { continue }
            let length = Int(mapping.end - mapping.start)
            guard madvise(address, length, MADV_DONTNEED) == 0 else {
                continue
            }
            trimmed += length
        }
        return trimmed
    }

    private static func readSmaps() -> String? {
        guard let bytes = try? POSIXFileSystem().readFile(at: "/proc/self/smaps") else { return nil }
        return String(decoding: bytes, as: UTF8.self)
    }
}
