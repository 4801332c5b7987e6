import FuzzHarnesses

/// libFuzzer's entry point: one input through `HTTPRequestHarness`.
@_cdecl("LLVMFuzzerTestOneInput")
func testOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    FuzzDriver.test(HTTPRequestHarness.self, data, size)
}

@main
enum FuzzHTTPRequestParser {
    static func main() {
        FuzzDriver.main(HTTPRequestHarness.self, testOneInput: testOneInput)
    }
}
