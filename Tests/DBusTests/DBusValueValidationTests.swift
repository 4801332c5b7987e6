import Testing

@testable import DBus
@testable import DBusModel

/// libdbus aborts the process on values that do not match their declared types: these must be errors instead.
@Suite("DBusValue validation")
struct DBusValueValidationTests {
    static let invalid: [(value: DBusValue, reason: String)] = [
        (.array(.string, [.string("a"), .int32(1)]), "holds an item of type 'i' at index 1"),
        (.array(.array(.byte), [.bytes([1]), .strings([])]), "holds an item of type 'as'"),
        (
            .dictionary(key: .string, value: .variant, [DBusDictEntry(.string("k"), .string("not a variant"))]),
            "holds an entry of types 's' => 's'"
        ),
        (.dictionary(key: .variant, value: .string, []), "not a basic type"),
        (.structure([]), "at least one member"),
        (.string("nul\u{0}inside"), "NUL"),
        (.objectPath("relative/path"), "invalid object path"),
        (.objectPath("/trailing/"), "invalid object path"),
        (.signature("a{vs}"), "not a basic type"),
        (.array(.structure([]), []), "empty structure"),
        (.variant(.structure([])), "at least one member"),
    ]

    @Test(arguments: invalid)
    func invalidValuesAreRefusedWithAReason(_ case_: (value: DBusValue, reason: String)) {
        do {
            try case_.value.validate()
            Issue.record("accepted \(case_.value)")
        } catch {
            #expect(error.message.contains(case_.reason), "\(error.message)")
        }
        // The same value inside a message is refused before it reaches libdbus, naming the argument.
        let message = DBusMessage.signal(
            path: "/a", interface: "org.aiden.Test1", member: "Bad", body: [.int32(0), case_.value])
        #expect(throws: DBusError.self) { try message.roundTrippedThroughLibDBus() }
        do {
            try message.validate()
        } catch {
            #expect(error.kind == .invalidArgs || error.kind == .invalidSignature)
            #expect(error.message.contains("argument 1"), "\(error.message)")
        }
    }

    @Test func nestingBeyondTheSpecificationIsRefused() {
        var deep = DBusValue.int32(1)
        for _ in 0..<70 { deep = .variant(deep) }
        #expect(throws: DBusError.self) { try deep.validate() }
        var fine = DBusValue.int32(1)
        for _ in 0..<60 { fine = .variant(fine) }
        #expect(throws: Never.self) { try fine.validate() }
        #expect(throws: Never.self) {
            try DBusMessage.signal(path: "/a", interface: "a.b", member: "C", body: [fine]).roundTrippedThroughLibDBus()
        }
        var deepArrays = DBusValue.bytes([])
        for _ in 0..<32 { deepArrays = .array(deepArrays.type, [deepArrays]) }
        #expect(throws: DBusError.self) { try deepArrays.validate() }
    }

    @Test func invalidHeadersAreRefusedNamingTheField() {
        let cases: [(DBusMessage, String)] = [
            (.methodCall(destination: "no dots", path: "/a", interface: "a.b", member: "C"), "destination"),
            (.methodCall(destination: nil, path: "a", interface: "a.b", member: "C"), "object path"),
            (.methodCall(destination: nil, path: "/a", interface: "nodots", member: "C"), "interface"),
            (.methodCall(destination: nil, path: "/a", interface: "a.b", member: "has.dot"), "member"),
            (.signal(path: "/a", interface: "a.b", member: "C", destination: "x y"), "destination"),
            (DBusMessage(type: .methodReturn), "reply serial"),
            (DBusMessage(type: .error, replySerial: 1, errorName: "bad"), "error name"),
            (.signal(path: "/org/freedesktop/DBus/Local", interface: "a.b", member: "C"), "reserved"),
        ]
        for (message, field) in cases {
            do {
                try message.validate()
                Issue.record("accepted \(message)")
            } catch {
                #expect(error.kind == .invalidArgs)
                #expect(error.message.contains(field), "\(error.message)")
            }
        }
    }

    /// Found by fuzz-dbus-message: libdbus sends a path or interface that only starts with the local one, and
    /// every receiver (dbus-daemon too) refuses the message as corrupted, so validation refuses the prefix.
    @Test func theLocalPathAndInterfaceAreReservedAsPrefixes() throws {
        let reserved: [DBusMessage] = [
            .signal(path: "/org/freedesktop/DBus/Localv", interface: "a.b", member: "C"),
            .signal(path: "/org/freedesktop/DBus/Local/x", interface: "a.b", member: "C"),
            .signal(path: "/a", interface: "org.freedesktop.DBus.Localx", member: "C"),
            .methodCall(destination: nil, path: "/a", interface: "org.freedesktop.DBus.Local.X", member: "C"),
        ]
        for message in reserved {
            #expect(throws: DBusError.self, "\(message)") { try message.validate() }
        }
        let neighbours: [DBusMessage] = [
            .signal(path: "/org/freedesktop/DBus/Loca", interface: "org.freedesktop.DBus.Properties", member: "C"),
            .signal(path: "/org/freedesktop/DBusLocal", interface: "org.freedesktop.DBusLocal", member: "C"),
        ]
        for message in neighbours {
            #expect(try DBusMessage(wireBytes: message.wireBytes(serial: 3)).path == message.path)
        }
    }

    @Test func objectPathsFollowTheRules() {
        for good in ["/", "/a", "/org/bluez/hci0", "/a_b/C9"] { #expect(DBusObjectPath(good).isValid, "\(good)") }
        for bad in ["", "a", "/a/", "//a", "/a//b", "/a-b", "/ä"] { #expect(!DBusObjectPath(bad).isValid, "\(bad)") }
        #expect(DBusObjectPath("/org/bluez").appending("hci0") == "/org/bluez/hci0")
        #expect(DBusObjectPath.root.appending("a") == "/a")
        #expect(DBusObjectPath("/a/b").parent == "/a")
        #expect(DBusObjectPath("/a").parent == .root)
        #expect(DBusObjectPath.root.parent == nil)
        #expect(DBusObjectPath("/app/service0").isDescendant(of: "/app"))
        #expect(!DBusObjectPath("/application").isDescendant(of: "/app"))
        #expect(!DBusObjectPath("/app").isDescendant(of: "/app"))
        #expect(DBusObjectPath("/app").isDescendant(of: .root))
        #expect(throws: DBusError.self) { try DBusObjectPath(validating: "/bad/") }
    }
}
