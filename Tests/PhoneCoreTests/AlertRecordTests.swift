import FoundationEssentials
import Testing

@testable import PhoneCore

@Suite struct AlertRecordTests {
    private func key(_ number: Int) -> AlertKey {
        .task(epoch: 1, requestID: "chat_\(number)", transition: .completed)
    }

    @Test func keepsTheNewestKeysUpToItsCapacity() {
        var record = AlertRecord(capacity: 3)
        for number in 1...5 {
            let inserted = record.insert(key(number))
            #expect(inserted)
        }
        let again = record.insert(key(5))
        #expect(!again)
        #expect(record.keys == [key(3), key(4), key(5)])
        #expect(!record.contains(key(1)) && !record.contains(key(2)))
        #expect(record.contains(key(3)))
        let forgotten = record.insert(key(1))
        #expect(forgotten)  // forgotten, so it counts as new again
        #expect(record.keys == [key(4), key(5), key(1)])
    }

    @Test func theDefaultCapacityIsLargerThanTheBoardRing() {
        var record = AlertRecord()
        for number in 1...600 { record.insert(key(number)) }
        #expect(record.keys.count == 512)
        #expect(record.keys.first == key(89))
    }

    /// Pins the file's exact form: the one JSONEncoder wrote (keys sorted, `/` not escaped, nil members left
    /// out) before the record was written by hand, so scripts reading `alerts.json` see no change.
    @Test func roundTripsThroughJSON() throws {
        var record = AlertRecord(capacity: 4)
        record.insert(.connection("usb-1/2"))
        record.insert(
            .task(epoch: 9, requestID: "chat_1", transition: .foregroundRecovery, eventID: 3, generation: "g"))
        record.cursor = EventCursor(since: 12, generation: "g", epoch: 9)
        record.hasReadEvents = true
        let text = String(decoding: record.json, as: UTF8.self)
        #expect(
            text == #"{"capacity":4,"cursor":{"epoch":9,"generation":"g","since":12},"has_read_events":true,"#
                + #""keys":[{"subject":"usb-1/2","transition":"connected"},"#
                + #"{"epoch":9,"event_id":3,"generation":"g","subject":"chat_1","transition":"foreground_recovery"}]}"#)
        #expect(try JSONDecoder().decode(AlertRecord.self, from: Data(text.utf8)) == record)
    }

    @Test func anEmptyRecordAndOneFromAnOlderClient() throws {
        #expect(
            String(decoding: AlertRecord().json, as: UTF8.self)
                == #"{"capacity":512,"cursor":{"since":0},"has_read_events":false,"keys":[]}"#)
        var record = AlertRecord(capacity: 2)
        record.insert(.task(epoch: 3, requestID: "c", transition: .handoff))
        record.legacyCursor = EventCursor(since: 5, generation: nil, epoch: 3)
        let text = String(decoding: record.json, as: UTF8.self)
        #expect(
            text == #"{"capacity":2,"cursor":{"since":0},"has_read_events":false,"#
                + #""keys":[{"epoch":3,"subject":"c","transition":"handoff"}],"legacy_cursor":{"epoch":3,"since":5}}"#)
        #expect(try JSONDecoder().decode(AlertRecord.self, from: Data(text.utf8)) == record)
    }

    /// Request ids and generations come from the board: whatever they hold, the file reads back as the record.
    @Test(arguments: [
        "plain", #"quote " and backslash \"#, "slash / é ü 🙂", "\u{0}\u{8}\u{C}\u{1F}\u{7F}", "line\nbreak\r\ttab", "",
    ])
    func anyTextReadsBack(_ text: String) throws {
        var record = AlertRecord()
        record.insert(
            .task(epoch: UInt16.max, requestID: text, transition: .failed, eventID: UInt64.max, generation: text))
        record.insert(.connection(text))
        record.cursor = EventCursor(since: UInt64.max, generation: text, epoch: 0)
        record.hasReadEvents = true
        #expect(try JSONDecoder().decode(AlertRecord.self, from: Data(record.json)) == record)
    }

    @Test func decodingDropsDuplicatesAndKeepsTheNewestWithinCapacity() throws {
        let text =
            #"{"capacity":2,"keys":["#
            + #"{"epoch":1,"subject":"a","transition":"failed"},{"epoch":1,"subject":"a","transition":"failed"},"#
            + #"{"epoch":1,"subject":"b","transition":"failed"},{"epoch":1,"subject":"c","transition":"failed"}]}"#
        let record = try JSONDecoder().decode(AlertRecord.self, from: Data(text.utf8))
        #expect(record.keys.map(\.subject) == ["b", "c"])
        #expect(record.cursor == EventCursor())
        #expect(record.hasReadEvents)  // an older file with keys has read events before
    }
}
