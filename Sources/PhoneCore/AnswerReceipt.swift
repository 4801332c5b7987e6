import WireFormat

/// The board's `200` to an answer: `{"ok":true,"answer":{…},"task":{…}}`. The recorded answer is what
/// the board kept (for a second `stop`, the first one); the task is the snapshot after it, when sent.
package struct AnswerReceipt: Sendable, Equatable, Decodable {
    package var answer: AnswerView?
    package var task: SnapshotView?

    package init(answer: AnswerView?, task: SnapshotView?) {
        self.answer = answer
        self.task = task
    }

    /// `ok` must be `true`; the rest is read leniently (an answer recorded is what counts).
    package init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: EnvelopeKey.self)
        guard try container.decode(Bool.self, forKey: .ok) else {
            throw DecodingError.dataCorruptedError(forKey: .ok, in: container, debugDescription: "must be true")
        }
        self.init(
            answer: AnswerView.named(container.lenient(AnswerView.self, forKey: .answer)),
            task: container.lenient(SnapshotView.self, forKey: .task))
    }
}
