import FoundationEssentials
import FuzzHarnesses
import Testing
import WireFormat

/// `phone-answers` checks that a `--json` line is a JSON object with `JSONObjectProbe` instead of reading it into a
/// `JSONValue`: the two must accept the same texts.
@Suite struct JSONObjectProbeTests {
    static let texts = [
        #"{}"#, #"{"event":"card","at":"2026-01-01T00:00:00Z"}"#, #"{"a":[1,2.5,-3e2,true,null,{"b":"c"}]}"#,
        #"{"n":1e400}"#, #"{"s":"\ud800"}"#, #"{"\ud800":1}"#, #"{"a":1,"a":2}"#, #" {"a":"\u00e9\n"} "#,
        #"[]"#, #"[{}]"#, #""{}""#, #"1"#, #"null"#, #"{"a":1"#, #"{"a":1}}"#, #"{"a":01}"#, #"{'a':1}"#,
        #"{"a":"x"} {}"#, "", "{\"a\":\"\u{1}\"}",
    ]

    @Test(arguments: texts)
    func acceptsWhatJSONValueReadsAsAnObject(_ text: String) {
        let bytes = Data(text.utf8)
        let value = try? JSONDecoder().decode(JSONValue.self, from: bytes)
        let isObject = if case .object? = value { true } else { false }
        #expect(((try? JSONDecoder().decode(JSONObjectProbe.self, from: bytes)) != nil) == isObject)
    }
}
