/// Idempotency keys for `task start`: 128 random bits, so two invocations never share one.
package enum IdempotencyKey {
    /// `aidenctl-` and 32 lowercase hex digits. Randomness comes in, so tests get fixed keys.
    package static func make(using generator: inout some RandomNumberGenerator) -> String {
        var text = "aidenctl-"
        for _ in 0..<2 {
            let hex = String(generator.next() as UInt64, radix: 16)
            text += String(repeating: "0", count: 16 - hex.count) + hex
        }
        return text
    }

    /// 16 lowercase hex digits of the 64-bit FNV-1a hash of `text`: a short, stable name for a longer text (an MCP
    /// call's key, a hook session whose id is no request id).
    package static func digest(_ text: String) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in text.utf8 { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01b3 }
        let hex = String(hash, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }
}
