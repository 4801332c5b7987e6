import Testing

@testable import Platform

/// Which mappings `ResidentSet.trim()` may drop: only those whose every page is the file's own, unwritable.
@Suite struct ResidentSetTests {
    static let smaps = """
        5581a0000000-5581a0400000 r--p 00000000 08:01 131 /usr/bin/aiden-board
        Size:               4096 kB
        Rss:                1024 kB
        Anonymous:             0 kB
        VmFlags: rd mr mw me sd
        5581a0400000-5581a1400000 r-xp 00400000 08:01 131 /usr/bin/aiden-board
        Size:              16384 kB
        Anonymous:             0 kB
        5581a1400000-5581a1500000 r--p 01400000 08:01 131 /usr/bin/aiden-board
        Anonymous:           512 kB
        5581a1500000-5581a1510000 rw-p 01500000 08:01 131 /usr/bin/aiden-board
        Anonymous:             0 kB
        5581a2000000-5581a2100000 rw-p 00000000 00:00 0          [heap]
        Anonymous:           900 kB
        7f0000000000-7f0000010000 r--s 00000000 00:05 7 /dev/shm/x
        Anonymous:             0 kB
        7f0000100000-7f0000110000 r-xp 00000000 00:01 9 /memfd:jit (deleted)
        Anonymous:             0 kB
        7f0000200000-7f0000210000 r-xp 00000000 08:01 44 /usr/lib/x86_64-linux-gnu/libc.so.6
        Anonymous:             0 kB
        7f0000300000-7f0000301000 r-xp 00000000 08:01 45 /usr/lib/libold.so (deleted)
        Anonymous:             0 kB
        7ffd00000000-7ffd00002000 r-xp 00000000 00:00 0                          [vdso]
        Anonymous:             0 kB
        7f0000400000-7f0000410000 r-xp 00000000 08:01 46 /usr/lib/no-anonymous-line.so
        """

    @Test func readsEachMappingWithItsAnonymousPages() {
        let mappings = ResidentSet.mappings(smaps: Self.smaps)
        #expect(mappings.count == 11)
        #expect(
            mappings.first
                == ResidentSet.Mapping(
                    start: 0x5581_a000_0000, end: 0x5581_a040_0000, permissions: "r--p", path: "/usr/bin/aiden-board",
                    anonymousKilobytes: 0))
        #expect(mappings[2].anonymousKilobytes == 512)
        #expect(mappings[4].path == "[heap]" && mappings[4].anonymousKilobytes == 900)
        #expect(mappings[10].anonymousKilobytes == Int.max, "no Anonymous line: taken to hold pages of its own")
    }

    @Test func onlyUnwrittenReadOnlyPrivateFileMappingsAreTrimmed() {
        let trimmable = ResidentSet.mappings(smaps: Self.smaps).filter(\.isTrimmable).map(\.start)
        #expect(
            trimmable == [0x5581_a000_0000, 0x5581_a040_0000, 0x7f00_0020_0000],
            "the binary's constants and code, libc's code; never relocated or writable pages, nor unknown ones")
    }

    /// On this process: the trimmed pages come back as they were when touched again.
    @Test func trimmingThisProcessLosesNothing() {
        let before = ResidentSet.mappings(smaps: Self.smaps)
        let trimmed = ResidentSet.trim()
        #expect(trimmed > 0, "this test binary has read-only file mappings")
        // Its code and constants run again from the pages brought back.
        #expect(ResidentSet.mappings(smaps: Self.smaps) == before)
        #expect(ResidentSet.mappings(smaps: "").isEmpty)
    }
}
