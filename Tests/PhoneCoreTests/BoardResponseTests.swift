import PhoneCore
import Testing

/// `Retry-After` as the phone believes it: whole seconds only; anything else is no delay, never an error.
@Suite struct BoardResponseTests {
    @Test(
        arguments: [
            ("95", Duration.seconds(95)),
            (" 7\t", .seconds(7)),
            ("0", .seconds(1)),
            ("300", .seconds(300)),
            ("999999999", .seconds(999_999_999)),
        ] as [(String, Duration)])
    func delaySecondsAreBelieved(header: String, delay: Duration) {
        #expect(BoardResponse.retryAfter(header) == delay)
    }

    @Test(
        arguments: [
            nil, "", " ", "-5", "1.5", "+3", "1 2", "1e3", "١٢", "１２", "9999999999",
            "Wed, 21 Oct 2026 07:28:00 GMT",
        ] as [String?])
    func anythingElseIsNoDelay(header: String?) {
        #expect(BoardResponse.retryAfter(header) == nil)
    }
}
