import FuzzHarnesses

/// libFuzzer's entry point: one input through `PhoneAnswersHarness`.
@_cdecl("LLVMFuzzerTestOneInput")
func testOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    FuzzDriver.test(PhoneAnswersHarness.self, data, size)
}

@main
enum FuzzPhoneAnswers {
    static func main() {
        FuzzDriver.main(PhoneAnswersHarness.self, testOneInput: testOneInput)
    }
}
