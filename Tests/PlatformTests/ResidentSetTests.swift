import FoundationEssentials
import Glibc
import Testing

@testable import Platform

/// Which mappings `ResidentSet.trim()` may drop: only those whose every page is the file's own, unwritable; and
/// which pages of a writable file mapping it reclaims: the file's, never one the process wrote.
@Suite struct ResidentSetTests {
    static let smaps = """
        5581a0000000-5581a0400000 r--p 00000000 08:01 131 /usr/bin/aiden-board
        Size:               4096 kB
        Rss:                1024 kB
        Anonymous:             0 kB
        Swap:                  0 kB
        VmFlags: rd mr mw me sd
        5581a0400000-5581a1400000 r-xp 00400000 08:01 131 /usr/bin/aiden-board
        Size:              16384 kB
        Anonymous:             0 kB
        Swap:                  0 kB
        5581a1400000-5581a1500000 r--p 01400000 08:01 131 /usr/bin/aiden-board
        Anonymous:           512 kB
        Swap:                  0 kB
        5581a1500000-5581a1510000 rw-p 01500000 08:01 131 /usr/bin/aiden-board
        Anonymous:             0 kB
        Swap:                  0 kB
        5581a2000000-5581a2100000 rw-p 00000000 00:00 0          [heap]
        Anonymous:           900 kB
        Swap:                  0 kB
        7f0000000000-7f0000010000 r--s 00000000 00:05 7 /dev/shm/x
        Anonymous:             0 kB
        Swap:                  0 kB
        7f0000100000-7f0000110000 r-xp 00000000 00:01 9 /memfd:jit (deleted)
        Anonymous:             0 kB
        Swap:                  0 kB
        7f0000200000-7f0000210000 r-xp 00000000 08:01 44 /usr/lib/x86_64-linux-gnu/libc.so.6
        Anonymous:             0 kB
        Swap:                  0 kB
        7f0000300000-7f0000301000 r-xp 00000000 08:01 45 /usr/lib/libold.so (deleted)
        Anonymous:             0 kB
        Swap:                  0 kB
        7ffd00000000-7ffd00002000 r-xp 00000000 00:00 0                          [vdso]
        Anonymous:             0 kB
        Swap:                  0 kB
        7f0000400000-7f0000410000 r-xp 00000000 08:01 46 /usr/lib/no-anonymous-line.so
        7f0000500000-7f0000510000 r--p 00010000 08:01 47 /usr/lib/librelocated.so
        Anonymous:             0 kB
        Swap:                  8 kB
        """

    @Test func readsEachMappingWithItsAnonymousPages() {
        let mappings = ResidentSet.mappings(smaps: Self.smaps)
        #expect(mappings.count == 12)
        #expect(
            mappings.first
                == ResidentSet.Mapping(
                    start: 0x5581_a000_0000, end: 0x5581_a040_0000, permissions: "r--p", path: "/usr/bin/aiden-board",
                    anonymousKilobytes: 0, swapKilobytes: 0))
        #expect(mappings[2].anonymousKilobytes == 512)
        #expect(mappings[4].path == "[heap]" && mappings[4].anonymousKilobytes == 900)
        #expect(mappings[10].anonymousKilobytes == Int.max, "no Anonymous line: taken to hold pages of its own")
        #expect(mappings[11].swapKilobytes == 8)
    }

    @Test func onlyUnwrittenReadOnlyPrivateFileMappingsAreTrimmed() {
        let trimmable = ResidentSet.mappings(smaps: Self.smaps).filter(\.isTrimmable).map(\.start)
        #expect(
            trimmable == [0x5581_a000_0000, 0x5581_a040_0000, 0x7f00_0020_0000],
            "the binary's constants and code, libc's code; never relocated (in memory or swap), writable or unknown pages"
        )
    }

    @Test func onlyWritablePrivateFileMappingsAreReclaimed() {
        let reclaimable = ResidentSet.mappings(smaps: Self.smaps).filter(\.isReclaimable).map(\.start)
        #expect(reclaimable == [0x5581_a150_0000], "the binary's data segment; not the heap, nor a shared mapping")
    }

    /// Present file pages make runs; an anonymous page (copied on write), a page not present and one in swap end
    /// them.
    @Test func theFilesPagesAreFoundInThePagemap() {
        let file: UInt64 = 1 << 63 | 1 << 61 | 0x1234
        let anonymous: UInt64 = 1 << 63 | 0x5678
        let swapped: UInt64 = 1 << 62 | 0x9
        let entries = [file, file, anonymous, 0, file, swapped, file, file, file]
        let runs = ResidentSet.filePageRuns(pagemap: entries, start: 0x10000, pageSize: 4096)
        #expect(runs.map(\.start) == [0x10000, 0x14000, 0x16000])
        #expect(runs.map(\.length) == [8192, 4096, 12288])
        #expect(ResidentSet.filePageRuns(pagemap: [anonymous, 0], start: 0, pageSize: 4096).isEmpty)
    }

    /// On a private, writable mapping of a file in this process: the pages only read leave the resident set and
    /// come back as the file has them; the page written keeps what was written.
    @Test func reclaimingKeepsWhatTheProcessWrote() throws {
        let pageSize = Int(sysconf(Int32(_SC_PAGESIZE)))
        // Not /tmp, which may be tmpfs: its pages cannot be reclaimed without swap.
        var template = Array("/var/tmp/aiden-resident-test.XXXXXX".utf8CString)
        let descriptor = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        try #require(descriptor >= 0)
        let path = String(decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
        defer {
            close(descriptor)
            unlink(path)
        }
        let contents = (0..<4 * pageSize).map { UInt8(truncatingIfNeeded: $0 / pageSize + 1) }
        try #require(contents.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) } == contents.count)
        try #require(fsync(descriptor) == 0, "clean pages, as a binary's are")
        let mapped = try #require(mmap(nil, contents.count, PROT_READ | PROT_WRITE, MAP_PRIVATE, descriptor, 0))
        try #require(mapped != MAP_FAILED)
        defer { munmap(mapped, contents.count) }
        let bytes = mapped.assumingMemoryBound(to: UInt8.self)
        #expect((0..<4).map { bytes[$0 * pageSize] } == [1, 2, 3, 4], "every page read, so resident")
        bytes[pageSize] = 0xAA

        let trimmed = ResidentSet.trim()
        #expect(trimmed.reclaimed >= 3 * pageSize, "the three pages only read, at least")
        let start = UInt(bitPattern: mapped)
        let entries = try pagemap(start: start, pages: 4, pageSize: pageSize)
        #expect(entries.map { $0 >> 63 } == [0, 1, 0, 0], "only the page written is resident")

        #expect(bytes[pageSize] == 0xAA && bytes[pageSize + 1] == 2, "what was written, and the rest of its page")
        #expect((0..<4 * pageSize).allSatisfy { $0 / pageSize == 1 || bytes[$0] == contents[$0] })
    }

    func pagemap(start: UInt, pages: Int, pageSize: Int) throws -> [UInt64] {
        let descriptor = open("/proc/self/pagemap", O_RDONLY)
        try #require(descriptor >= 0)
        defer { close(descriptor) }
        var entries = [UInt64](repeating: 0, count: pages)
        let read = entries.withUnsafeMutableBytes {
            pread(descriptor, $0.baseAddress, $0.count, off_t(Int(start) / pageSize * 8))
        }
        try #require(read == pages * 8)
        return entries
    }

    /// On this process: the trimmed pages come back as they were when touched again.
    @Test func trimmingThisProcessLosesNothing() {
        let trimmed = ResidentSet.trim()
        #expect(trimmed.dropped > 0, "this test binary has read-only file mappings")
        // Its code and constants run again from the pages brought back, and give what they gave before.
        let again = ResidentSet.mappings(smaps: Self.smaps)
        #expect(again.count == 12 && again[1].permissions == "r-xp" && again[1].end == 0x5581_a140_0000)
        #expect(again.filter(\.isTrimmable).count == 3)
        #expect(ResidentSet.mappings(smaps: "").isEmpty)
    }
}
