/// How a harness that takes several parts (requests, answers) reads them from one input: the parts are
/// separated by a line holding only `---`. At most `limit` parts are read, so one input stays quick.
enum FuzzRecords {
    static let limit = 16

    static func split(_ input: [UInt8]) -> [ArraySlice<UInt8>] {
        var records: [ArraySlice<UInt8>] = []
        var start = 0
        var index = 0
        while index + 4 < input.count, records.count < limit - 1 {
            if input[index] == 0x0A, input[index + 1] == 0x2D, input[index + 2] == 0x2D, input[index + 3] == 0x2D,
                input[index + 4] == 0x0A
            {
                records.append(input[start..<index])
                index += 5
                start = index
            } else {
                index += 1
            }
        }
        records.append(input[start...])
        return records
    }

    /// The bytes up to the first line feed, and the bytes after it (nil without one).
    static func firstLine(_ bytes: ArraySlice<UInt8>) -> (line: ArraySlice<UInt8>, rest: ArraySlice<UInt8>?) {
        guard let end = bytes.firstIndex(of: UInt8(ascii: "\n")) else { return (bytes, nil) }
        return (bytes[..<end], bytes[(end + 1)...])
    }

    /// Text as a C library's strings arrive: cut at the first NUL, invalid UTF-8 repaired.
    static func cString(_ bytes: some Collection<UInt8>) -> String {
        String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
    }
}
