/// TOML integer syntax: decimal with optional sign, `0x`/`0o`/`0b` without sign, `_` between
/// digits, no leading zeros in decimal, 64-bit signed range.
enum TOMLInteger {
    struct Failure: Error, Equatable {
        let reason: String
    }

    static func parse(_ token: String) -> Result<Int64, Failure> {
        var body = Substring(token)
        var negative = false
        var signed = false
        if let sign = body.first, sign == "+" || sign == "-" {
            negative = sign == "-"
            signed = true
            body = body.dropFirst()
        }
        var radix: UInt64 = 10
        var radixName = "a decimal"
        if body.count >= 2, body.first == "0", let marker = body.dropFirst().first, marker.isLetter {
            switch marker {
            case "x": (radix, radixName) = (16, "a hexadecimal")
            case "o": (radix, radixName) = (8, "an octal")
            case "b": (radix, radixName) = (2, "a binary")
            case "X", "O", "B": return .failure(Failure(reason: "the prefix must be lower case (0x, 0o, 0b)"))
            default: return .failure(Failure(reason: "'\(marker)' is not a decimal digit"))
            }
            if signed { return .failure(Failure(reason: "\(radixName) integer cannot have a sign")) }
            body = body.dropFirst(2)
        }
        guard !body.isEmpty else { return .failure(Failure(reason: "missing digits")) }
        if radix == 10, body.count > 1, body.first == "0" {
            return .failure(Failure(reason: "leading zeros are not allowed"))
        }
        if body.first == "_" || body.last == "_" || body.contains("__") {
            return .failure(Failure(reason: "each '_' must sit between two digits"))
        }
        var magnitude: UInt64 = 0
        let limit: UInt64 = negative ? UInt64(Int64.max) + 1 : UInt64(Int64.max)
        for scalar in body.unicodeScalars where scalar != "_" {
            guard let digit = scalar.hexDigitValue, UInt64(digit) < radix else {
                return .failure(Failure(reason: "'\(Character(scalar))' is not \(radixName) digit"))
            }
            let (shifted, overflow) = magnitude.multipliedReportingOverflow(by: radix)
            guard !overflow, shifted <= limit - UInt64(digit) else {
                return .failure(Failure(reason: "out of range for a 64-bit signed integer"))
            }
            magnitude = shifted + UInt64(digit)
        }
        if negative {
            return .success(magnitude == UInt64(Int64.max) + 1 ? Int64.min : -Int64(magnitude))
        }
        return .success(Int64(magnitude))
    }
}
