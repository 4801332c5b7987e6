import PhoneCore
import Testing

/// The status socket's `GET /v1/task` object, as the client writes it and `aiden-phone stop` reads it back.
@Suite struct ShownTaskTests {
    @Test func itReadsBackWhatItWrote() {
        let task = ShownTask(requestID: "chat_1", revision: 41, title: "Say \"hi\"\n")
        #expect(task.json == #"{"request_id":"chat_1","revision":41,"title":"Say \"hi\"\n"}"#)
        #expect(ShownTask(json: Array(task.json.utf8)) == task)
        let bare = ShownTask(requestID: "chat_1", revision: nil, title: nil)
        #expect(bare.json == #"{"request_id":"chat_1"}"#)
        #expect(ShownTask(json: Array(bare.json.utf8)) == bare)
    }

    /// The id goes into the answer's URL path: one outside the request-id rule is not taken.
    @Test(arguments: [
        #"{"request_id":"../x"}"#, #"{"request_id":""}"#, #"{"revision":3}"#, #"{"request_id":"a","revision":-1}"#,
        "not json", "",
    ])
    func anythingElseIsNotATask(text: String) {
        #expect(ShownTask(json: Array(text.utf8)) == nil)
    }
}
