import Testing

@testable import Platform

/// Which mappings `ResidentSet.trim()` may drop: only those whose every page is the file's own, unwritable.
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

    /// On this process: the trimmed pages come back as they were when touched again.
    @Test func trimmingThisProcessLosesNothing() {
        let trimmed = ResidentSet.trim()
        #expect(trimmed > 0, "this test binary has read-only file mappings")
        // Its code and constants run again from the pages brought back, and give what they gave before.
        let again = ResidentSet.mappings(smaps: Self.smaps)
        #expect(again.count == 12 && again[1].permissions == "r-xp" && again[1].end == 0x5581_a140_0000)
        #expect(again.filter(\.isTrimmable).count == 3)
        #expect(ResidentSet.mappings(smaps: "").isEmpty)
    }
}
