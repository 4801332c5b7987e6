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
}
