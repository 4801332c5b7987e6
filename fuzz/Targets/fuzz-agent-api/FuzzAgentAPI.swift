import FuzzHarnesses

/// libFuzzer's entry point: one input through `AgentAPIHarness`.
@_cdecl("LLVMFuzzerTestOneInput")
func testOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    FuzzDriver.test(AgentAPIHarness.self, data, size)
}

@main
enum FuzzAgentAPI {
    static func main() {
        FuzzDriver.main(AgentAPIHarness.self, testOneInput: testOneInput)
    }
}
