import Foundation
import Testing

@testable import PhoneCore

@Suite struct BoardRequestTests {
    @Test func targetsHeadersAndBodies() throws {
        #expect(BoardRequest.status.target == "/status")
        #expect(BoardRequest.bluetoothStatus.target == "/api/bluetooth/status")
        #expect(BoardRequest.bluetoothStatus.method == "GET" && BoardRequest.bluetoothStatus.headers.isEmpty)
        let current = BoardRequest.current(phoneID: "phone_1", ifNoneMatch: "\"1234-7\"")
        #expect(current.target == "/api/live-activity/current?phone_id=phone_1")
        #expect(current.headers.map(\.0) == ["If-None-Match"])
        #expect(current.headers.map(\.1) == ["\"1234-7\""])
        #expect(BoardRequest.current(phoneID: "p", ifNoneMatch: nil).headers.isEmpty)
        #expect(BoardRequest.events(EventCursor()).target == "/api/live-activity/events?since=0")
        #expect(
            BoardRequest.events(EventCursor(since: 43, generation: "1234-a b&c", epoch: 1234)).target
                == "/api/live-activity/events?since=43&generation=1234-a%20b%26c")
        let post = BoardRequest.appState(.background, phoneID: "phone_1")
        #expect(post.method == "POST")
        #expect(post.target == "/api/phone/app-state")
        let body = try #require(try JSONSerialization.jsonObject(with: Data(post.body)) as? [String: String])
        #expect(body == ["state": "background", "phone_id": "phone_1"])
        // Quoted with the shared escaper (its exact output is tested in WireFormatTests): any id survives.
        let odd = BoardRequest.appState(.foreground, phoneID: "a\"b\\c\u{1}")
        let oddBody = try #require(try JSONSerialization.jsonObject(with: Data(odd.body)) as? [String: String])
        #expect(oddBody == ["state": "foreground", "phone_id": "a\"b\\c\u{1}"])
    }

    @Test func statusAnswers() {
        #expect(
            BoardStatusAnswer(body: Array(#"{"status":"ok","instance_id":"fd65118"}"#.utf8))
                == .instance("fd65118"))
        #expect(BoardStatusAnswer(body: Array(#"{"status":"ok","version":"0.1.0"}"#.utf8)) == .noInstance)
        #expect(BoardStatusAnswer(body: Array(#"{"status":"ok","instance_id":"a b"}"#.utf8)) == .noInstance)
        #expect(BoardStatusAnswer(body: Array("not json".utf8)) == .unreadable)
        #expect(BoardStatusAnswer(body: Array(#"{"status":"error"}"#.utf8)) == .unreadable)
    }
}
