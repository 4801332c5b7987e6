import Testing

/// Waits until `condition` holds, checking every 10 ms, for at most `seconds`: for state that another process
/// changes (no signal to wait on). Bounded: a broken system fails the test, never hangs it.
func eventually(
    _ what: String, within seconds: Double = 10, sourceLocation: SourceLocation = #_sourceLocation,
    _ condition: () -> Bool
) async throws {
    let clock = ContinuousClock()
    let deadline = clock.now + .milliseconds(Int(seconds * 1000))
    while !condition() {
        guard clock.now < deadline else {
            Issue.record("timed out after \(seconds) s waiting for \(what)", sourceLocation: sourceLocation)
            throw DeadlineExceeded(what: what)
        }
        try await Task.sleep(for: .milliseconds(10))
    }
}
