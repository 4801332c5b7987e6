import Glibc

/// The fault suite's two sizes and its figures (docs/fault-suite.md).
///
/// The same tests run short in `scripts/test` (CI) and long from `scripts/faults --long`, which sets
/// `AIDEN_FAULT_SUITE=long`. Each test reports what it measured as one line `fault-suite NAME: key=value …`
/// on standard output, and appends it to the file named by `AIDEN_FAULT_FIGURES` when that is set, so the
/// script can print every figure of a run at the end.
package enum FaultSuite {
    /// Whether this run is the long form.
    package static var isLong: Bool {
        guard let value = getenv("AIDEN_FAULT_SUITE") else { return false }
        return String(cString: value) == "long"
    }

    /// `short` in CI, `long` in the long form.
    package static func size<T>(short: T, long: T) -> T { isLong ? long : short }

    /// Prints (and appends to `AIDEN_FAULT_FIGURES`) one line of figures.
    package static func report(_ name: String, _ figures: KeyValuePairs<String, String>) {
        let line =
            "fault-suite \(name) (\(isLong ? "long" : "short")): "
            + figures.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
        print(line)
        guard let path = getenv("AIDEN_FAULT_FIGURES"), let file = fopen(path, "a") else { return }
        fputs(line + "\n", file)
        fclose(file)
    }

    /// `p` (0…1) of `values` by nearest rank, 0 when there are none.
    package static func percentile(_ values: [Double], _ p: Double) -> Double {
        guard !values.isEmpty else { return 0 }
        let sorted = values.sorted()
        let rank = Int((p * Double(sorted.count)).rounded(.up)) - 1
        return sorted[min(max(rank, 0), sorted.count - 1)]
    }

    /// Milliseconds with one decimal, for figures.
    package static func milliseconds(_ seconds: Double) -> String {
        let tenths = Int((seconds * 10_000).rounded())
        return "\(tenths / 10).\(tenths % 10)ms"
    }
}
