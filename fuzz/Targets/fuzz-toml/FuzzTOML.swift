import FuzzHarnesses

/// libFuzzer's entry point: one input through `TOMLHarness`.
@_cdecl("LLVMFuzzerTestOneInput")
func testOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    FuzzDriver.test(TOMLHarness.self, data, size)
}

@main
enum FuzzTOML {
    static func main() {
        FuzzDriver.main(TOMLHarness.self, testOneInput: testOneInput)
    }
}
