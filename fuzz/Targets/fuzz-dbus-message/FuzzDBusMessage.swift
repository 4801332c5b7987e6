import FuzzHarnesses

/// libFuzzer's entry point: one input through `DBusMessageHarness`.
@_cdecl("LLVMFuzzerTestOneInput")
func testOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    FuzzDriver.test(DBusMessageHarness.self, data, size)
}

@main
enum FuzzDBusMessage {
    static func main() {
        FuzzDriver.main(DBusMessageHarness.self, testOneInput: testOneInput)
    }
}
