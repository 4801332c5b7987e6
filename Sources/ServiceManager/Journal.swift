internal import CSystemd
import Logging
import Platform

/// The journal's native protocol (sd_journal_sendv): entries with their structured fields, so an operator can
/// select a task's lines with `journalctl -u aiden-board REQUEST_ID=…`.
package enum Journal {
    /// Sends one entry of `NAME=value` fields (`LogEntry.journalFields`). Returns whether the journal took it.
    /// Each field is its own iovec: sd_journal_sendv sends a value with a line feed length-prefixed, so even such a
    /// value could not start another field (the logger's values never hold one anyway).
    @discardableResult
    package static func send(_ fields: [String]) -> Bool {
        let buffers = fields.map { field -> UnsafeMutableRawBufferPointer in
            let bytes = Array(field.utf8)
            let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: max(bytes.count, 1), alignment: 1)
            buffer.copyBytes(from: bytes)
            return UnsafeMutableRawBufferPointer(rebasing: buffer[0..<bytes.count])
        }
        defer { buffers.forEach { $0.deallocate() } }
        var vectors = buffers.map { iovec(iov_base: $0.baseAddress, iov_len: $0.count) }
        return sd_journal_sendv(&vectors, Int32(vectors.count)) == 0
    }

    /// The daemons' log sink: where stderr is the journal, each entry is sent with its fields (the program's name as
    /// `SYSLOG_IDENTIFIER`), and written to `fallback` as a `<N>` line when the journal does not take it (or its
    /// native socket is missing, which sd_journal_sendv does not report); anywhere
    /// else, `fallback` gets the plain line. `fallback` defaults to a write(2) on stderr.
    package static func sink(
        identifier: String, destination: LogDestination = Logger.standardErrorDestination(),
        fallback: (@Sendable (String) -> Void)? = nil
    ) -> Logger.Sink {
        let write =
            fallback.map { write in
                { @Sendable (entry: LogEntry) in
                    write(Logger.standardErrorLine(entry, for: destination))
                }
            } ?? Logger.standardErrorSink(destination)
        switch destination {
        case .plain:
            return write
        case .journal where !Logger.journalSocketExists():
            // libsystemd would drop every entry without a word: journald still reads `<N>` lines from stderr.
            return write
        case .journal:
            return { entry in
                if !send(entry.journalFields(identifier: identifier)) { write(entry) }
            }
        }
    }
}
