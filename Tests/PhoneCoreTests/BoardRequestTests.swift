import Foundation
import Testing
import WireFormat

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
        let post = BoardRequest.appState(.background, returnEntry: nil, phoneID: "phone_1")
        #expect(post.method == "POST")
        #expect(post.target == "/api/phone/app-state")
        #expect(post.headers.map(\.0) == ["Content-Type"])
        let body = try #require(try JSONSerialization.jsonObject(with: Data(post.body)) as? [String: Any])
        #expect(body["state"] as? String == "background")
        #expect(body["phone_id"] as? String == "phone_1")
        // Quoted with the shared escaper (its exact output is tested in WireFormatTests): any id survives.
        let odd = BoardRequest.appState(.foreground, returnEntry: nil, phoneID: "a\"b\\c\u{1}")
        let oddBody = try #require(try JSONSerialization.jsonObject(with: Data(odd.body)) as? [String: Any])
        #expect(oddBody["state"] as? String == "foreground")
        #expect(oddBody["phone_id"] as? String == "a\"b\\c\u{1}")
        #expect(
            BoardRequest.task(requestID: "chat_1").target == "/api/live-activity/status?request_id=chat_1")
        #expect(
            BoardRequest.task(requestID: "a b/&").target == "/api/live-activity/status?request_id=a%20b%2F%26")
        #expect(BoardRequest.task(requestID: "chat_1").method == "GET")
        #expect(BoardRequest.task(requestID: "chat_1").body.isEmpty)
    }

    /// The app-state bodies exactly as sent: both return-entry fields every time, "none" said outright.
    @Test(arguments: [
        (
            ReturnEntry?.some(.card), AppState.foreground,
            #"{"state":"foreground","return_entry":"card","return_entry_available":true,"phone_id":"phone_1"}"#
        ),
        (
            .notification, .background,
            #"{"state":"background","return_entry":"notification","return_entry_available":true,"#
                + #""phone_id":"phone_1"}"#
        ),
        (
            nil, .inactive,
            #"{"state":"inactive","return_entry":"","return_entry_available":false,"phone_id":"phone_1"}"#
        ),
    ])
    func appStateBodies(entry: ReturnEntry?, state: AppState, text: String) {
        let request = BoardRequest.appState(state, returnEntry: entry, phoneID: "phone_1")
        #expect(String(decoding: request.body, as: UTF8.self) == text)
    }

    @Test func theCardIsPreferredAsTheReturnEntry() {
        #expect(ReturnEntry.preferred(among: []) == nil)
        #expect(ReturnEntry.preferred(among: [.notification]) == .notification)
        #expect(ReturnEntry.preferred(among: [.card]) == .card)
        #expect(ReturnEntry.preferred(among: [.notification, .card]) == .card)
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
