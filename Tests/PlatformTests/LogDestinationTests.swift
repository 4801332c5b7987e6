import Logging
import Testing

/// Whether stderr is the journal: `JOURNAL_STREAM` (what systemd connected stderr to) against fstat(2) of
/// descriptor 2 (what it is now).
@Suite struct LogDestinationTests {
    @Test(arguments: [
        // systemd's stream, still stderr.
        (String?("8:12345"), (UInt64(8), UInt64(12345)) as (UInt64, UInt64)?, LogDestination.journal),
        ("0:1", (0, 1), .journal),
        ("18446744073709551615:18446744073709551615", (UInt64.max, UInt64.max), .journal),
        // Unset, or stderr could not be examined.
        (nil, (8, 12345), .plain),
        ("8:12345", nil, .plain),
        // Inherited by a process whose stderr is now something else (a terminal, a pipe).
        ("8:12345", (8, 99), .plain),
        ("8:12345", (9, 12345), .plain),
        // Not `device:inode` in decimal.
        ("", (8, 12345), .plain),
        ("8", (8, 12345), .plain),
        ("8:", (8, 0), .plain),
        (":12345", (0, 12345), .plain),
        ("8:12345:1", (8, 12345), .plain),
        ("0x8:12345", (8, 12345), .plain),
        ("+8:12345", (8, 12345), .plain),
        ("8: 12345", (8, 12345), .plain),
        ("٨:12345", (8, 12345), .plain),
        ("18446744073709551616:1", (0, 1), .plain),
    ])
    func theJournalOnlyWhenStandardErrorIsStillItsStream(
        variable: String?, standardError: (UInt64, UInt64)?, expected: LogDestination
    ) {
        let identity = standardError.map { (device: $0.0, inode: $0.1) }
        #expect(LogDestination.forStandardError(journalStream: variable, standardError: identity) == expected)
    }
}
