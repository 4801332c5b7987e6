import DBusModel
import Testing

@testable import BlueZ

/// Which advertising device the phone takes for the board: a table of devices and what is configured.
@Suite("RemoteDevice")
struct RemoteDeviceTests {
    static let address = "00:AA:01:00:12:34"

    static func device(
        address: String = address, uuids: [String] = [WakeGATT.serviceUUID], paired: Bool = false,
        identity: [UInt8]? = nil
    ) -> RemoteDevice {
        var properties: [String: DBusValue] = [
            "Address": .string(address), "UUIDs": .strings(uuids), "Paired": .boolean(paired), "RSSI": .int16(-50),
        ]
        if let identity {
            properties["ManufacturerData"] = .variantDictionary(
                key: .uint16, [(.uint16(WakeGATT.manufacturerID), .bytes(identity))])
        }
        return RemoteDevice(properties: properties)
    }

    static let own: [UInt8] = [0x00, 0xAA, 0x01, 0x00, 0x12, 0x34]
    static let other: [UInt8] = [0x00, 0xAA, 0x01, 0x00, 0x99, 0x99]

    @Test func candidatesTable() {
        let rows: [(String, RemoteDevice, String?, Bool)] = [
            ("bonded, Wake service, no identity advertised", Self.device(paired: true), nil, true),
            ("not bonded, advertises its own address as identity", Self.device(identity: Self.own), nil, true),
            ("not bonded, Wake UUID only: a stranger's device", Self.device(), nil, false),
            ("not bonded, identity of another board", Self.device(identity: Self.other), nil, false),
            (
                "bonded, but advertising another board's identity", Self.device(paired: true, identity: Self.other),
                nil, false
            ),
            ("identity of the wrong length", Self.device(identity: [1, 2, 3]), nil, false),
            ("no Wake service, own identity", Self.device(uuids: [], identity: Self.own), nil, false),
            ("configured address, no Wake UUID yet", Self.device(uuids: []), Self.address, true),
            ("configured address in lower case", Self.device(), Self.address.lowercased(), true),
            ("configured address, copied identity", Self.device(identity: Self.other), Self.address, false),
            ("another address than the configured one", Self.device(paired: true), "00:AA:01:00:99:99", false),
        ]
        for (what, device, configured, expected) in rows {
            #expect(device.isBoard(configuredAddress: configured) == expected, "\(what)")
        }
    }

    @Test func identityIsReadFromEitherByteArrayForm() {
        let asArray = DBusValue.dictionary(
            key: .uint16, value: .variant,
            [DBusDictEntry(.uint16(0xFFFF), .variant(.array(.byte, Self.own.map(DBusValue.byte))))])
        #expect(RemoteDevice.boardIdentity(in: asArray) == Self.address)
        let otherCompany = DBusValue.variantDictionary(key: .uint16, [(.uint16(0x004C), .bytes(Self.own))])
        #expect(RemoteDevice.boardIdentity(in: otherCompany) == nil)
        #expect(RemoteDevice.boardIdentity(in: .string("no")) == nil)
    }
}
