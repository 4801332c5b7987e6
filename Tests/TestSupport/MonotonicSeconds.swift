import Glibc

/// Seconds on the monotonic clock: when a test's lines, answers and kills happened, for its figures.
package func monotonicSeconds() -> Double {
    var spec = timespec()
    clock_gettime(CLOCK_MONOTONIC, &spec)
    return Double(spec.tv_sec) + Double(spec.tv_nsec) / 1e9
}
