import TestSupport
import Testing

/// Waits until `condition` holds, checking every 10 ms, for at most `seconds`: for state that another process
/// changes (no signal to wait on). Bounded: a broken system fails the test, never hangs it. The bounds are
/// generous because the whole suite shares two cores and Swift's cooperative pool with tests that block it.
func eventually(
    _ what: String, within seconds: Double = 30, sourceLocation: SourceLocation = #_sourceLocation,
    diagnostics: () -> String = { "" }, _ condition: () async -> Bool
) async throws {
    let clock = ContinuousClock()
    let deadline = clock.now + .milliseconds(Int(seconds * 1000))
    while !(await condition()) {
        guard clock.now < deadline else {
            let text: String = "timed out after \(seconds) s waiting for \(what)\n" + diagnostics()
            Issue.record(Comment(rawValue: text), sourceLocation: sourceLocation)
            throw DeadlineExceeded(what: what)
        }
        try await Task.sleep(for: .milliseconds(10))
    }
}
