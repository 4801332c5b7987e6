import FuzzHarnesses

/// libFuzzer's entry point: one input through `PhoneAPIHarness`.
@_cdecl("LLVMFuzzerTestOneInput")
func testOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    FuzzDriver.test(PhoneAPIHarness.self, data, size)
}

@main
enum FuzzPhoneAPI {
    static func main() {
        FuzzDriver.main(PhoneAPIHarness.self, testOneInput: testOneInput)
    }
}
