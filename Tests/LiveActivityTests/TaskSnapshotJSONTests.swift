import FoundationEssentials
import Testing
import WakeProtocol
import WireFormat

@testable import LiveActivity

/// `TaskSnapshot.appendJSON` writes what the board's encoder writes for the snapshot, byte for byte, whatever it
/// holds: the agent's answers, the published bodies and `tasks.json` keep the one form they had.
@Suite struct TaskSnapshotJSONTests {
    static func encoded(_ snapshot: TaskSnapshot) throws -> String {
        String(decoding: try LiveActivityJSON.makeEncoder().encode(snapshot), as: UTF8.self)
    }

    static func written(_ snapshot: TaskSnapshot, others: OtherTasks? = nil) throws -> String {
        var bytes = Array("[".utf8)
        try snapshot.appendJSON(to: &bytes, others: others)
        #expect(bytes.first == UInt8(ascii: "["), "appended after what the buffer held")
        return String(decoding: bytes.dropFirst(), as: UTF8.self)
    }

    static let texts = [
        "", "plain", "quote \" and backslash \\", "slash / </script>", "é ü 日本 🙂", "\u{2028}\u{2029}\u{FEFF}",
        String((0..<0x20).map { Character(UnicodeScalar(UInt8($0))) }) + "\u{7F}",
    ]

    static let numbers: [Double] = [
        0, -0.0, 1, 0.5, 0.25, 0.1 + 0.2, 1.0 / 3, 1e-5, 2.5e-8, .leastNonzeroMagnitude, 1e16, 123_456_789_012_345_680,
        0.999_999_999,
    ]

    @Test func aPlainTaskAndOneWithEveryMember() throws {
        let plain = TaskSnapshot(
            requestID: "chat_1", taskTitle: "Open Settings", startedAt: at(0), updatedAt: at(0), revision: 1)
        #expect(try Self.written(plain) == (try Self.encoded(plain)))
        var full = plain
        full.phoneID = "phone-1"
        full.status = .completed
        full.phase = .waitingUser
        full.currentStep = "step"
        full.currentAction = "request_user_input"
        full.currentTarget = "target"
        full.currentApp = "Settings"
        full.lastToolName = "tap"
        full.lastError = "went wrong"
        full.toolStatus = "tapping"
        full.toolStartedAt = at(1.5)
        full.locale = "en-US"
        full.progress = 0.75
        full.showsProgress = true
        full.canStop = true
        full.requiresApp = true
        full.staleAfterSeconds = 30
        full.abandonAfterSeconds = 600
        full.staleSince = at(2.001)
        full.updatedAt = at(3)
        full.endedAt = at(4)
        full.dismissAfterSeconds = 0
        full.dismissedAt = at(5)
        full.revision = .max
        full.answer = TaskAnswer(answer: .refuse, answerID: "ans-1", phoneID: "phone-1", answeredAt: at(4.5))
        #expect(try Self.written(full) == (try Self.encoded(full)))
        full.answer?.phoneID = ""
        full.dismissAfterSeconds = .max
        full.staleAfterSeconds = .min
        #expect(try Self.written(full) == (try Self.encoded(full)))
    }

    /// A seeded walk over every member: texts that need every escape, numbers in every form the encoder writes,
    /// dates before 1970 and with milliseconds, members present and null.
    @Test func anySnapshotIsWrittenAsTheEncoderWritesIt() throws {
        var random = SplitMix64(seed: 2026_12_07)
        func text() -> String { Self.texts[Int(random.next() % UInt64(Self.texts.count))] }
        func date() -> Date {
            Date(timeIntervalSince1970: Double(Int64(bitPattern: random.next()) % 4_000_000_000_000) / 1000)
        }
        func maybe<Value>(_ value: @autoclosure () -> Value) -> Value? { random.next() % 2 == 0 ? value() : nil }
        for _ in 0..<500 {
            let snapshot = TaskSnapshot(
                requestID: text(), phoneID: text(),
                status: TaskStatus.allCases[Int(random.next() % UInt64(TaskStatus.allCases.count))],
                phase: TaskPhase.allCases[Int(random.next() % UInt64(TaskPhase.allCases.count))], taskTitle: text(),
                currentStep: text(), currentAction: text(), currentTarget: text(), currentApp: text(),
                lastToolName: text(), lastError: text(), toolStatus: text(), toolStartedAt: maybe(date()),
                locale: text(), progress: Self.numbers[Int(random.next() % UInt64(Self.numbers.count))],
                showsProgress: random.next() % 2 == 0, canStop: random.next() % 2 == 0,
                requiresApp: random.next() % 2 == 0, staleAfterSeconds: Int(truncatingIfNeeded: random.next()),
                abandonAfterSeconds: Int(random.next() % 100_000), staleSince: maybe(date()), startedAt: date(),
                updatedAt: date(), endedAt: maybe(date()),
                dismissAfterSeconds: maybe(Int(truncatingIfNeeded: random.next())), dismissedAt: maybe(date()),
                revision: random.next(),
                answer: maybe(
                    TaskAnswer(
                        answer: Answer.allCases[Int(random.next() % UInt64(Answer.allCases.count))], answerID: text(),
                        phoneID: text(), answeredAt: date())))
            #expect(try Self.written(snapshot) == (try Self.encoded(snapshot)))
        }
    }

    /// `/api/live-activity/current`'s form: `others` among the snapshot's members, in sorted order, as the encoder
    /// writes the snapshot's members and that one in one object.
    @Test func othersIsWrittenAmongTheMembers() throws {
        let snapshot = TaskSnapshot(
            requestID: "chat_1", taskTitle: "Open Settings", progress: 0.5, startedAt: at(0), updatedAt: at(1),
            revision: 7)
        let encoder = LiveActivityJSON.makeEncoder()
        guard case var .object(members) = try JSONDecoder().decode(JSONValue.self, from: encoder.encode(snapshot))
        else {
            Issue.record("a snapshot encodes to an object")
            return
        }
        members[CurrentKey.others.stringValue] = .object([
            "active": JSONValue(UInt64(2)), "waiting": JSONValue(UInt64(1)),
        ])
        let expected = String(decoding: try encoder.encode(JSONValue.object(members)), as: UTF8.self)
        #expect(try Self.written(snapshot, others: OtherTasks(active: 2, waiting: 1)) == expected)
    }

    /// What the encoder refuses (a progress that is not a finite number), this refuses too.
    @Test(arguments: [Double.nan, .infinity, -.infinity])
    func aProgressThatIsNoNumberIsRefused(_ progress: Double) {
        let snapshot = TaskSnapshot(
            requestID: "chat_1", taskTitle: "T", progress: progress, startedAt: at(0), updatedAt: at(0), revision: 1)
        #expect(throws: EncodingError.self) { try LiveActivityJSON.makeEncoder().encode(snapshot) }
        var bytes: [UInt8] = []
        #expect(throws: EncodingError.self) { try snapshot.appendJSON(to: &bytes) }
    }
}
