#if canImport(Glibc)
import Glibc
#endif

/// Unbuffered writes to stdout/stderr, so nothing is lost when `exit` follows.
enum StandardStream {
    static func write(_ text: String, to descriptor: Int32) {
        let bytes = Array(text.utf8)
        write(bytes: bytes[...], to: descriptor)
    }

    /// Writes all of `bytes`; false when the descriptor refuses (a reader that went away: EPIPE).
    @discardableResult
    static func write(bytes: ArraySlice<UInt8>, to descriptor: Int32) -> Bool {
        var offset = bytes.startIndex
        while offset < bytes.endIndex {
            let written = bytes[offset...].withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) }
            if written < 0 {
                if errno == EINTR { continue }
                return false
            }
            offset += written
        }
        return true
    }
}
