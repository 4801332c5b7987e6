import FuzzHarnesses

/// libFuzzer's entry point: one input through `HTTPResponseHarness`.
@_cdecl("LLVMFuzzerTestOneInput")
func testOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    FuzzDriver.test(HTTPResponseHarness.self, data, size)
}

@main
enum FuzzHTTPResponseParser {
    static func main() {
        FuzzDriver.main(HTTPResponseHarness.self, testOneInput: testOneInput)
    }
}
