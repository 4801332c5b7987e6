import Testing

@testable import DBus
@testable import DBusModel

/// Values through real libdbus message objects (no bus): `DBusMessageIter` appending and reading, and the wire
/// format (`dbus_message_marshal`/`demarshal`, which validates as a receiver would).
@Suite("DBusValue marshalling")
struct DBusValueMarshallingTests {
    /// Marshals `body` into a libdbus signal, reads it back, and also round-trips it through wire bytes.
    private func roundTrip(_ body: [DBusValue]) throws -> (viaMessage: [DBusValue], viaWire: [DBusValue]) {
        let message = DBusMessage.signal(
            path: "/org/aiden/test", interface: "org.aiden.Test1", member: "Values", body: body)
        let viaMessage = try message.roundTrippedThroughLibDBus().body
        let viaWire = try DBusMessage(wireBytes: message.wireBytes(serial: 7)).body
        return (viaMessage, viaWire)
    }

    static let basics: [DBusValue] = [
        .byte(0), .byte(255), .boolean(true), .boolean(false),
        .int16(.min), .int16(.max), .uint16(.max), .int32(.min), .int32(-1), .uint32(.max),
        .int64(.min), .int64(.max), .uint64(.max), .double(-0.5), .double(.pi), .double(.greatestFiniteMagnitude),
        .string(""), .string("Aiden-7113"), .string("ünïcödé ✓ 🚀"), .string("quote ' and \\"),
        .objectPath("/"), .objectPath("/org/bluez/hci0/dev_00_1A_7D_DA_71_13"),
        .signature(""), .signature("a{oa{sa{sv}}}"),
    ]

    @Test(arguments: basics)
    func basicValuesRoundTrip(_ value: DBusValue) throws {
        let result = try roundTrip([value])
        #expect(result.viaMessage == [value])
        #expect(result.viaWire == [value])
    }

    @Test func byteArraysRoundTripAsBytes() throws {
        let all = (0...255).map { UInt8($0) }
        let large = [UInt8](repeating: 0xA5, count: 65_536)
        let body: [DBusValue] = [.bytes([]), .bytes([0x42]), .bytes(all), .bytes(large)]
        let result = try roundTrip(body)
        #expect(result.viaMessage == body)
        #expect(result.viaWire == body)
        // An `ay` built as an array of bytes reads back in the compact form.
        let spelledOut = DBusValue.array(.byte, [.byte(1), .byte(2)])
        #expect(try roundTrip([spelledOut]).viaMessage == [.bytes([1, 2])])
        #expect(spelledOut.bytesValue == [1, 2])
    }

    @Test func arraysKeepTheirElementTypeWhenEmpty() throws {
        let body: [DBusValue] = [
            .strings([]), .strings(["a", "b"]), .objectPaths(["/a", "/a/b"]),
            .array(.array(.string), [.strings(["x"]), .strings([])]),
            .array(.structure([.objectPath, .dictionary(key: .string, value: .variant)]), []),
            .array(.variant, [.variant(.int32(1)), .variant(.string("two"))]),
            .array(.int64, (0..<100).map { .int64(Int64($0) * 1_000_000_007) }),
        ]
        let result = try roundTrip(body)
        #expect(result.viaMessage == body)
        #expect(result.viaWire == body)
    }

    @Test func structuresAndNestedVariantsRoundTrip() throws {
        let nested = DBusValue.variant(
            .variant(.variant(.array(.variant, [.variant(.bytes([9])), .variant(.vardict([:]))]))))
        let body: [DBusValue] = [
            .structure([.string("x")]),
            .structure([.int32(1), .structure([.boolean(true), .double(2.5)]), .bytes([1, 2, 3])]),
            nested,
            .variant(.structure([.objectPath("/o"), .strings(["flag"])])),
        ]
        let result = try roundTrip(body)
        #expect(result.viaMessage == body)
        #expect(result.viaWire == body)
    }

    @Test func vardictRoundTripsWithUnwrappedAccess() throws {
        let options: [String: DBusValue] = [
            "offset": .uint16(4), "type": .string("request"), "mtu": .uint16(247),
            "device": .objectPath("/org/bluez/hci0/dev_X"),
            "nested": .vardict(["inner": .variant(.boolean(true))]),
        ]
        let value = DBusValue.vardict(options)
        let result = try roundTrip([value])
        #expect(result.viaMessage == [value])
        #expect(result.viaWire == [value])
        #expect(result.viaMessage.first?.vardict == options)
        // Keys are written sorted: the wire order does not depend on hashing.
        guard case .dictionary(_, _, let entries) = value else { return }
        #expect(entries.map(\.key) == ["device", "mtu", "nested", "offset", "type"].map(DBusValue.string))
    }

    @Test func dictionariesWithOtherKeyTypesRoundTrip() throws {
        let manufacturerData = DBusValue.variantDictionary(
            key: .uint16, [(.uint16(0xFFFF), .bytes([0, 0x1A, 0x7D, 0xDA, 0x71, 0x13]))])
        let byPath = DBusValue.dictionary(
            key: .objectPath, value: .array(.string),
            [DBusDictEntry(.objectPath("/a"), .strings(["x"]))])
        let empty = DBusValue.dictionary(key: .int32, value: .double, [])
        let body = [manufacturerData, byPath, empty]
        let result = try roundTrip(body)
        #expect(result.viaMessage == body)
        #expect(result.viaWire == body)
    }

    @Test func managedObjectsRoundTrip() throws {
        let objects: DBusManagedObjects = [
            "/org/bluez/hci0": [
                "org.bluez.Adapter1": ["Address": .string("00:1A:7D:DA:71:13"), "Powered": .boolean(true)],
                "org.bluez.GattManager1": [:],
                "org.bluez.LEAdvertisingManager1": [
                    "SupportedInstances": .byte(5), "SupportedIncludes": .strings(["tx-power"]),
                ],
            ],
            "/org/bluez/hci0/dev_00_1A_7D_DA_71_13": [
                "org.bluez.Device1": ["UUIDs": .strings(["0000180a-0000-1000-8000-00805f9b34fb"]), "RSSI": .int16(-60)]
            ],
        ]
        let value = DBusValue.managedObjects(objects)
        #expect(value.signature == "a{oa{sa{sv}}}")
        let result = try roundTrip([value])
        #expect(result.viaMessage == [value])
        #expect(result.viaWire == [value])
        #expect(result.viaWire.first?.managedObjects == objects)
    }

    @Test func headersRoundTripThroughTheWire() throws {
        let call = DBusMessage(
            type: .methodCall, path: "/org/bluez/hci0", interface: "org.bluez.GattManager1",
            member: "RegisterApplication", destination: "org.bluez", sender: ":1.7", noReplyExpected: true,
            body: [.objectPath("/org/aiden/app"), .vardict([:])])
        let decoded = try DBusMessage(wireBytes: call.wireBytes(serial: 42))
        var expected = call
        expected.serial = 42
        #expect(decoded == expected)

        let failure = DBusMessage.error(replyingTo: decoded, .bluez(.alreadyExists, "Already Exists"))
        let decodedError = try DBusMessage(wireBytes: failure.wireBytes(serial: 43))
        #expect(decodedError.type == .error)
        #expect(decodedError.replySerial == 42)
        #expect(decodedError.destination == ":1.7")
        #expect(decodedError.error == .bluez(.alreadyExists, "Already Exists"))
        #expect(decodedError.error?.kind == .bluez(.alreadyExists))

        let reply = DBusMessage.methodReturn(replyingTo: decoded, body: [.bytes([1])])
        let decodedReply = try DBusMessage(wireBytes: reply.wireBytes(serial: 44))
        #expect(decodedReply.type == .methodReturn)
        #expect(decodedReply.replySerial == 42)
        #expect(decodedReply.body == [.bytes([1])])
    }

    /// Found by fuzz-dbus-message: libdbus parses a message of a type the specification does not define (it
    /// says receivers ignore them), and it was read as a method call without a path or member. It is refused.
    @Test func aMessageOfAnUndefinedTypeIsRefused() throws {
        let failure = DBusMessage(
            type: .error, replySerial: 5, errorName: "org.bluez.Error.Failed", body: [.string("x")])
        var bytes = try failure.wireBytes(serial: 10)
        #expect(try DBusMessage(wireBytes: bytes).type == .error)
        bytes[1] = 0xFB  // the message type byte
        #expect {
            try DBusMessage(wireBytes: bytes)
        } throws: { error in
            (error as? DBusError)?.message.contains("type 251 is not defined") == true
        }
    }
}
