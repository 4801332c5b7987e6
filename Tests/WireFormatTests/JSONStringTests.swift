import Testing
import WireFormat

@Suite struct JSONStringTests {
    @Test(arguments: [
        ("plain", #""plain""#),
        ("a\"b\\c\u{1}", #""a\"b\\c\u0001""#),
        ("line\nbreak\r\ttab", #""line\nbreak\r\ttab""#),
        ("\u{1F}\u{7F}", #""\u001f\#u{7F}""#),
        ("é/ü 🙂", #""é/ü 🙂""#),
        ("", #""""#),
    ])
    func quotes(_ text: String, _ expected: String) {
        #expect(JSONString.quote(text) == expected)
    }
}
