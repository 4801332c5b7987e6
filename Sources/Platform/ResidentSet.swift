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
///
/// A writable private mapping of a file (a binary's data segment: Swift's constants share it with what the
/// runtime writes, 1.0–1.7 MB of a daemon's resident set, most of it pages only read) holds both kinds, so its
/// pages that are still the file's (`/proc/self/pagemap`) are given back with `MADV_PAGEOUT` instead: reclaim,
/// which never discards a page of the process's own, so a page written between the look and the call is kept.
/// The file's pages leave the page cache too, and come back from the file when touched.
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

        /// Its pages that are still the file's may be reclaimed (`MADV_PAGEOUT`), not dropped: a private, writable
        /// mapping of a regular file, such as a binary's data segment, whose pages written since it was mapped are
        /// the process's own.
        package var isReclaimable: Bool {
            let flags = Array(permissions.utf8)
            guard flags.count == 4, flags[0] == UInt8(ascii: "r"), flags[1] == UInt8(ascii: "w"),
                flags[3] == UInt8(ascii: "p")
            else { return false }
            return isRegularFile
        }

        private var isRegularFile: Bool {
            path.hasPrefix("/") && !path.hasPrefix("/dev/") && !path.hasPrefix("/memfd:")
                && !path.hasSuffix(" (deleted)")
        }

        /// Dropping its pages loses nothing: a private mapping of a regular file that cannot be written and holds
        /// no page of its own, in memory or in swap (a relocated page is one, so is every page of a writable
        /// mapping), so every page is the file's and comes back as it was.
        package var isTrimmable: Bool {
            let flags = Array(permissions.utf8)
            guard flags.count == 4, flags[0] == UInt8(ascii: "r"), flags[1] == UInt8(ascii: "-"),
                flags[3] == UInt8(ascii: "p")
            else { return false }
            return anonymousKilobytes == 0 && swapKilobytes == 0 && isRegularFile
        }
    }

    /// Which pages of a mapping are still the file's, from its `/proc/self/pagemap` entries (one per page, from
    /// `start`): the runs of present pages the kernel marks as file pages (bit 61), each as (address, length).
    /// A page copied on write is anonymous, one not present is not resident: neither is in a run.
    package static func filePageRuns(
        pagemap entries: [UInt64], start: UInt, pageSize: Int
    ) -> [(start: UInt, length: Int)] {
        let present: UInt64 = 1 << 63
        let filePage: UInt64 = 1 << 61
        var runs: [(start: UInt, length: Int)] = []
        for (index, entry) in entries.enumerated() where entry & present != 0 && entry & filePage != 0 {
            let address = start + UInt(index * pageSize)
            if let last = runs.last, last.start + UInt(last.length) == address {
                runs[runs.count - 1].length += pageSize
            } else {
                runs.append((address, pageSize))
            }
        }
        return runs
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

    /// What `trim()` gave back, in bytes.
    package struct Trimmed: Equatable, Sendable {
        /// Of the mappings whose pages it dropped (`Mapping.isTrimmable`).
        package var dropped = 0
        /// Of the file's pages it reclaimed from writable mappings (`Mapping.isReclaimable`).
        package var reclaimed = 0
    }

    /// Drops this process's trimmable pages (`Mapping.isTrimmable`) and reclaims the file's pages of its writable
    /// file mappings (`Mapping.isReclaimable`). Nothing when `/proc/self/smaps` could not be read; no reclaim when
    /// `/proc/self/pagemap` could not be, or the kernel has no `MADV_PAGEOUT` (before Linux 5.4).
    @discardableResult
    package static func trim() -> Trimmed {
        guard let text = readSmaps() else { return Trimmed() }
        var trimmed = Trimmed()
        let pageSize = Int(sysconf(Int32(_SC_PAGESIZE)))
        for mapping in mappings(smaps: text) {
            if mapping.isTrimmable {
                guard let address = UnsafeMutableRawPointer(bitPattern: mapping.start) else { continue }
                let length = Int(mapping.end - mapping.start)
                if madvise(address, length, MADV_DONTNEED) == 0 { trimmed.dropped += length }
            } else if mapping.isReclaimable, let entries = pagemap(mapping, pageSize: pageSize) {
                for run in filePageRuns(pagemap: entries, start: mapping.start, pageSize: pageSize) {
                    guard let address = UnsafeMutableRawPointer(bitPattern: run.start) else { continue }
                    if madvise(address, run.length, MADV_PAGEOUT) == 0 { trimmed.reclaimed += run.length }
                }
            }
        }
        return trimmed
    }

    /// `mapping`'s entries in `/proc/self/pagemap`, one 64-bit word per page.
    private static func pagemap(_ mapping: Mapping, pageSize: Int) -> [UInt64]? {
        let pages = Int(mapping.end - mapping.start) / pageSize
        let descriptor = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var entries = [UInt64](repeating: 0, count: pages)
        let wanted = pages * MemoryLayout<UInt64>.size
        let read = entries.withUnsafeMutableBytes { buffer in
            pread(
                descriptor, buffer.baseAddress, wanted, off_t(Int(mapping.start) / pageSize * MemoryLayout<UInt64>.size)
            )
        }
        return read == wanted ? entries : nil
    }

    private static func readSmaps() -> String? {
        guard let bytes = try? POSIXFileSystem().readFile(at: "/proc/self/smaps") else { return nil }
        return String(decoding: bytes, as: UTF8.self)
    }
}
