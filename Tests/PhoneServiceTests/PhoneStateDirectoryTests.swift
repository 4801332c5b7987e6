import Foundation
import PhoneCore
import Platform
import TestSupport
import Testing

@testable import PhoneService

/// The phone id and the alert record on a crash-modelling in-memory file system.
@Suite struct PhoneStateDirectoryTests {
    struct Fixed: RandomNumberGenerator {
        var value: UInt64
        mutating func next() -> UInt64 { value }
    }

    @Test func aPhoneIDIsGeneratedOnceAndReadBackAfterACrash() throws {
        let fileSystem = InMemoryFileSystem()
        let directory = PhoneStateDirectory(path: "/var/lib/aiden-phone", fileSystem: fileSystem)
        try directory.prepare()
        var random = Fixed(value: 0xab)
        let first = try directory.phoneID(configured: nil, using: &random)
        #expect(first.id == "phone_00000000000000ab")
        #expect(first.source == .generated)
        fileSystem.crash()
        var other = Fixed(value: 0xcd)
        let again = try directory.phoneID(configured: nil, using: &other)
        #expect(again.id == first.id, "the id is durable once returned")
        #expect(again.source == .persisted)
        #expect(try fileSystem.readFile(at: "/var/lib/aiden-phone/phone-id") == Array("phone_00000000000000ab\n".utf8))
    }

    @Test func aConfiguredIDWinsAndIsNotWritten() throws {
        let fileSystem = InMemoryFileSystem()
        let directory = PhoneStateDirectory(path: "/s", fileSystem: fileSystem)
        try directory.prepare()
        var random = Fixed(value: 1)
        let result = try directory.phoneID(configured: "dev-phone", using: &random)
        #expect(result.id == "dev-phone")
        #expect(result.source == .configured)
        #expect(!fileSystem.fileExists(at: "/s/phone-id"))
    }

    @Test func anInvalidPersistedIDIsReplaced() throws {
        let fileSystem = InMemoryFileSystem(durableFiles: ["/s/phone-id": Array("bad id!\n".utf8)])
        let directory = PhoneStateDirectory(path: "/s", fileSystem: fileSystem)
        var random = Fixed(value: 2)
        let result = try directory.phoneID(configured: nil, using: &random)
        #expect(result.id == "phone_0000000000000002")
        #expect(result.note?.contains("not hold a valid phone id") == true)
    }

    @Test func phoneIDRules() {
        #expect(PhoneStateDirectory.isValidPhoneID("phone_0123456789abcdef"))
        #expect(PhoneStateDirectory.isValidPhoneID("a.b:c-d_E"))
        #expect(!PhoneStateDirectory.isValidPhoneID(""))
        #expect(!PhoneStateDirectory.isValidPhoneID("with space"))
        #expect(!PhoneStateDirectory.isValidPhoneID("é"))
        #expect(!PhoneStateDirectory.isValidPhoneID(String(repeating: "x", count: 129)))
    }

    @Test func theAlertRecordRoundTripsAndACorruptOneStartsEmpty() throws {
        let fileSystem = InMemoryFileSystem()
        let directory = PhoneStateDirectory(path: "/s", fileSystem: fileSystem)
        try directory.prepare()
        #expect(directory.loadAlertRecord().record == AlertRecord())
        #expect(directory.loadAlertRecord().note == nil)

        var policy = AlertPolicy()
        _ = policy.usbConnected(connectionID: "usb-1-7")
        _ = policy.receive(
            EventsAnswer(
                epoch: 7, generation: "7-g",
                events: [
                    BoardEvent(id: 1, requestID: "chat_1", transition: .known(.handoff))
                ], next: 1))
        try directory.saveAlertRecord(policy.record)
        fileSystem.crash()
        let loaded = directory.loadAlertRecord()
        #expect(loaded.record == policy.record)
        #expect(loaded.record.contains(.connection("usb-1-7")))
        let text = String(decoding: try fileSystem.readFile(at: "/s/alerts.json"), as: UTF8.self)
        #expect(text.contains(#""transition":"connected""#), "scripts can grep the record")

        try fileSystem.writeFile(at: "/s/alerts.json", contents: Array("{broken".utf8), permissions: 0o600)
        let corrupt = directory.loadAlertRecord()
        #expect(corrupt.record == AlertRecord())
        #expect(corrupt.note?.contains("/s/alerts.json") == true)
    }
}
