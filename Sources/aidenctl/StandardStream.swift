#if canImport(Glibc)
import Glibc
#endif

/// Unbuffered writes to stdout/stderr, so nothing is lost when `exit` follows.
enum StandardStream {
    static func write(_ text: String, to descriptor: Int32) {
        let bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) }
            if written < 0 {
                if errno == EINTR { continue }
                return
            }
            offset += written
        }
    }
}
