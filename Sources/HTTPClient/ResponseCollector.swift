/// What libcurl's header and write callbacks gather during one transfer. Lives on the calling thread only:
/// libcurl runs the callbacks synchronously inside `curl_easy_perform`.
final class ResponseCollector {
    let limit: Int
    private(set) var body: [UInt8] = []
    private(set) var headers: [String: String] = [:]
    /// Set when the body outgrew `limit` and the transfer was aborted on purpose.
    private(set) var exceededLimit = false
    private var lastHeaderName: String?

    init(limit: Int) {
        self.limit = limit
    }

    /// Returns false to abort the transfer (the body would pass the limit).
    func appendBody(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard body.count + bytes.count <= limit else {
            exceededLimit = true
            return false
        }
        body.append(contentsOf: bytes)
        return true
    }

    /// One raw header line, CRLF included. A status line starts a new response (after a 1xx), so the
    /// headers of the earlier one are dropped.
    func appendHeaderLine(_ bytes: UnsafeRawBufferPointer) {
        var end = bytes.count
        while end > 0, bytes[end - 1] == 0x0D || bytes[end - 1] == 0x0A { end -= 1 }
        let line = String(decoding: bytes[..<end], as: UTF8.self)
        if line.hasPrefix("HTTP/") {
            headers = [:]
            lastHeaderName = nil
            return
        }
        guard !line.isEmpty else { return }
        if let first = line.first, first == " " || first == "\t" {
            // Obsolete line folding (RFC 9112 §5.2): a continuation of the previous value.
            if let name = lastHeaderName, let value = headers[name] {
                headers[name] = value + " " + Self.trimmed(Substring(line))
            }
            return
        }
        guard let colon = line.firstIndex(of: ":") else { return }
        let name = line[..<colon].lowercased()
        let value = Self.trimmed(line[line.index(after: colon)...])
        if let existing = headers[name] {
            headers[name] = existing + ", " + value
        } else {
            headers[name] = value
        }
        lastHeaderName = name
    }

    private static func trimmed(_ text: Substring) -> String {
        String(
            text.drop(while: { $0 == " " || $0 == "\t" }).reversed().drop(while: { $0 == " " || $0 == "\t" })
                .reversed())
    }
}
