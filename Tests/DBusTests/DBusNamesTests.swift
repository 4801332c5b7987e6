import DBus
import DBusModel
import Testing

/// `DBusNames` checks names without libdbus; libdbus aborts on a name it refuses, so the two must agree exactly.
@Suite("DBusNames")
struct DBusNamesTests {
    /// Every string of up to four characters over the characters the rules treat differently.
    static let exhaustive: [String] = {
        let alphabet = ["a", "Z", "0", "_", "-", ".", ":"]
        var names = [""]
        var previous = [""]
        for _ in 1...4 {
            previous = previous.flatMap { prefix in alphabet.map { prefix + $0 } }
            names += previous
        }
        return names
    }()

    static let edges: [String] = [
        "org.bluez", "org.bluez.GattManager1", "org.bluez.Error.Failed", ":1.42", ":1.42.", "org.bluez.",
        "org..bluez", "1org.bluez", "org.1bluez", "org.b-luez", "-org.bluez", "RegisterApplication",
        "Register.Application", "with space", "caf\u{e9}.bluez", "org.bluez\u{0}.x", "x\u{0}",
        "a." + String(repeating: "b", count: 253), "a." + String(repeating: "b", count: 254),
        String(repeating: "m", count: 255), String(repeating: "m", count: 256),
        ":" + String(repeating: "1", count: 254), ":" + String(repeating: "1", count: 255),
    ]

    @Test func busNamesAgreeWithLibdbus() {
        for name in Self.exhaustive + Self.edges {
            #expect(DBusNames.isValidBusName(name) == DBusLibrary.isValidBusName(name), "'\(name)'")
        }
    }

    @Test func interfaceNamesAgreeWithLibdbus() {
        for name in Self.exhaustive + Self.edges {
            #expect(DBusNames.isValidInterface(name) == DBusLibrary.isValidInterface(name), "'\(name)'")
        }
    }

    @Test func memberNamesAgreeWithLibdbus() {
        for name in Self.exhaustive + Self.edges {
            #expect(DBusNames.isValidMember(name) == DBusLibrary.isValidMember(name), "'\(name)'")
        }
    }

    @Test func errorNamesAgreeWithLibdbus() {
        for name in Self.exhaustive + Self.edges {
            #expect(DBusNames.isValidErrorName(name) == DBusLibrary.isValidErrorName(name), "'\(name)'")
        }
    }
}
