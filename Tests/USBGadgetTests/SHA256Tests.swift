import Testing

@testable import USBGadget

@Suite struct SHA256Tests {
    static func hex(_ bytes: [UInt8]) -> String { bytes.map(\.lowercaseHex).joined() }

    /// FIPS 180-4 examples and lengths on each side of the padding boundary (55, 56, 64 bytes) and
    /// a multi-block message; expected digests from Python's hashlib.
    @Test(arguments: [
        ([UInt8](), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
        (Array("abc".utf8), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
        (
            Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"
        ),
        ([UInt8](repeating: 0x61, count: 55), "9f4390f8d30c2dd92ec9f095b65e2b9ae9b0a925a5258e241c9f1e910f734318"),
        ([UInt8](repeating: 0x61, count: 56), "b35439a4ac6f0948b6d6f9e3c6af0f5f590ce20f1bde7090ef7970686ec6738a"),
        ([UInt8](repeating: 0x61, count: 64), "ffe054fe7ae0cb6dc65c3af9b61d5209f439851db43d0ba5997337df154668eb"),
        ((0..<200).map { UInt8($0) }, "1901da1c9f699b48f6b2636e65cbf73abf99d0441ef67f5c540a42f7051dec6f"),
    ])
    func digest(message: [UInt8], expected: String) {
        #expect(Self.hex(SHA256.hash(message)) == expected)
    }

    /// RFC 4231 test cases 1, 2 and 6 (a key longer than the block is hashed first).
    @Test(arguments: [
        (
            [UInt8](repeating: 0x0b, count: 20), "Hi There",
            "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7"
        ),
        (
            Array("Jefe".utf8), "what do ya want for nothing?",
            "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"
        ),
        (
            [UInt8](repeating: 0xaa, count: 131), "Test Using Larger Than Block-Size Key - Hash Key First",
            "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54"
        ),
    ])
    func hmac(key: [UInt8], message: String, expected: String) {
        #expect(Self.hex(SHA256.hmac(key: key, message: Array(message.utf8))) == expected)
    }
}
