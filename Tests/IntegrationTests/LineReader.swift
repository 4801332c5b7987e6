import Foundation

/// Reads a child's output line by line as it comes, on a thread of its own, until the last writer closes it: the
/// one reader of the suites that follow a process's stdout (the phone's `--json` stream, `status --follow`, a bar).
enum LineReader {
    /// Hands each complete line (without its newline) to `line`; `group` is left when the output ends.
    static func start(_ output: Pipe, group: DispatchGroup? = nil, line: @escaping @Sendable (Data) -> Void) {
        DispatchQueue.global().async(group: group) {
            var pending = Data()
            while true {
                let chunk = output.fileHandleForReading.availableData
                if chunk.isEmpty { break }
                pending.append(chunk)
                while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                    line(pending[pending.startIndex..<newline])
                    pending.removeSubrange(pending.startIndex...newline)
                }
            }
        }
    }
}
