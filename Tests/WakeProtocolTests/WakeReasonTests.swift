import Testing

@testable import WakeProtocol

@Suite struct WakeReasonTests {
    @Test(arguments: [
        (UInt8(0), WakeReason.unknown, "unknown"),
        (1, .phoneBridge, "phone_bridge"),
        (2, .manual, "manual"),
        (3, .system, "system"),
        (4, .liveActivity, "live_activity"),
        (5, .usbReenumeration, "usb_reenumeration"),
    ])
    func knownBytesHaveContractNames(byte: UInt8, reason: WakeReason, name: String) {
        #expect(WakeReason(byte: byte) == reason)
        #expect(reason.byte == byte)
        #expect(reason.name == name)
        #expect(WakeReason(name: name) == reason)
        #expect(reason.isRecognized)
        if case .unrecognized = WakeReason(byte: byte) { Issue.record("byte \(byte) decoded as unrecognized") }
    }

    @Test func otherBytesKeepTheirRawValue() {
        for byte in UInt8(6)...UInt8.max {
            let reason = WakeReason(byte: byte)
            #expect(reason == .unrecognized(byte))
            #expect(reason.byte == byte)
            #expect(!reason.isRecognized)
            #expect(reason.name == "unrecognized_\(byte)")
            #expect(WakeReason(name: reason.name) == reason)
        }
    }

    @Test func reasonsCompareByWireByte() {
        #expect(WakeReason.unrecognized(4) == .liveActivity)
        #expect(WakeReason.unrecognized(4).isRecognized)
        #expect(Set([WakeReason.unrecognized(4), .liveActivity]).count == 1)
        #expect(WakeReason.unrecognized(9) != .unrecognized(10))
    }

    @Test func unknownNamesAreRejected() {
        #expect(WakeReason(name: "liveActivity") == nil)
        #expect(WakeReason(name: "") == nil)
        #expect(WakeReason(name: "unrecognized_") == nil)
        #expect(WakeReason(name: "unrecognized_256") == nil)
    }
}
