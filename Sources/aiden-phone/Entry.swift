#if canImport(Glibc)
import Glibc
#endif

/// Composition root of aiden-phone.
enum Entry {
    static func main() {
        let arguments = Array(CommandLine.arguments.dropFirst())
        if arguments.isEmpty || arguments.contains("--help") || arguments.contains("-h") {
            print(usage)
            exit(arguments.isEmpty ? 64 : 0)
        }
        FileHandleStderr.write("aiden-phone: not implemented yet: \(arguments.joined(separator: " "))\n")
        exit(64)
    }

    static let usage = "usage: aiden-phone --help"
}

enum FileHandleStderr {
    static func write(_ text: String) {
        var bytes = Array(text.utf8)
        _ = bytes.withUnsafeMutableBytes { Glibc.write(2, $0.baseAddress, $0.count) }
    }
}
