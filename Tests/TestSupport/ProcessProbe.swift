import Glibc

/// What `/proc` says about another process: its open file descriptors and its resident memory, for the
/// fault suite's leak checks.
package struct ProcessProbe: Sendable {
    package let pid: pid_t

    package init(pid: pid_t) { self.pid = pid }

    /// The entries of `/proc/PID/fd` (nil when the process is gone).
    package func openDescriptors() -> Int? {
        descriptorNumbers()?.count
    }

    /// The numbers of the open descriptors, as `/proc/PID/fd` lists them (nil when the process is gone).
    package func descriptorNumbers() -> [Int32]? {
        guard let directory = opendir("/proc/\(pid)/fd") else { return nil }
        defer { closedir(directory) }
        var numbers: [Int32] = []
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) {
                String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self)
            }
            if let number = Int32(name) { numbers.append(number) }
        }
        return numbers
    }

    /// What each descriptor points to (`readlink /proc/PID/fd/N`), sorted: shown when a count differs.
    package func descriptorTargets() -> [String] {
        var targets: [String] = []
        for name in descriptorNumbers() ?? [] {
            var buffer = [CChar](repeating: 0, count: 512)
            let count = readlink("/proc/\(pid)/fd/\(name)", &buffer, buffer.count - 1)
            let target =
                count > 0 ? String(decoding: buffer[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self) : "?"
            targets.append("\(name) -> \(target)")
        }
        return targets.sorted()
    }

    /// `VmRSS` from `/proc/PID/status`, in KiB (nil when the process is gone).
    package func residentKilobytes() -> Int? {
        guard let file = fopen("/proc/\(pid)/status", "r") else { return nil }
        defer { fclose(file) }
        var line = [CChar](repeating: 0, count: 256)
        while fgets(&line, Int32(line.count), file) != nil {
            let text = String(decoding: line.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            guard text.hasPrefix("VmRSS:") else { continue }
            return Int(text.dropFirst(6).filter(\.isNumber))
        }
        return nil
    }
}
