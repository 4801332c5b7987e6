import FuzzHarnesses

/// libFuzzer's entry point: one input through `WakeEnvelopeHarness`.
@_cdecl("LLVMFuzzerTestOneInput")
func testOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    FuzzDriver.test(WakeEnvelopeHarness.self, data, size)
}

@main
enum FuzzWakeEnvelope {
    static func main() {
        FuzzDriver.main(WakeEnvelopeHarness.self, testOneInput: testOneInput)
    }
}
