/// Where a daemon's stderr goes, which decides how its log lines are written: to the journal (entries with
/// fields, or `<N>`-prefixed lines journald reads), or to anything else (a terminal, a pipe, a file: plain lines,
/// no prefixes to read around).
package enum LogDestination: Sendable, Equatable {
    case journal
    case plain

    /// systemd sets `JOURNAL_STREAM` to `device:inode` (decimal) of the stream it connects stderr to. Only when
    /// stderr is still that stream (fstat(2) of descriptor 2 gives the same pair) is it the journal: a shell
    /// started from a service inherits the variable with its stderr redirected elsewhere.
    ///
    /// `journalStream`: the variable's value (nil: unset); `standardError`: fstat's `st_dev` and `st_ino` of
    /// descriptor 2 (nil: fstat failed).
    package static func forStandardError(
        journalStream: String?, standardError: (device: UInt64, inode: UInt64)?
    ) -> LogDestination {
        guard let journalStream, let standardError else { return .plain }
        let parts = journalStream.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2,
            parts.allSatisfy({ !$0.isEmpty && $0.allSatisfy(\.isASCII) && $0.allSatisfy(\.isNumber) }),
            let device = UInt64(parts[0]), let inode = UInt64(parts[1])
        else { return .plain }
        return device == standardError.device && inode == standardError.inode ? .journal : .plain
    }
}
