import BoardAPI
import Foundation
import TestSupport
import Testing
import WakeProtocol

@testable import BoardService

/// The privacy check of the Wake (docs/fault-suite.md, docs/wake-protocol.md): the only bytes the board ever hands a
/// Wake transport are 12-byte envelopes, and nothing of them depends on what the agents wrote. The engine is
/// driven through one random timeline of starts, updates and ends twice, once with random and huge task
/// texts (every plane of Unicode, controls, texts far over the limits) and once with short stand-ins that
/// keep every equality between texts and every accept or refusal; what reached the `WakeSink` must be the
/// same bytes at the same instants.
@Suite struct WakePrivacyTests {
    /// A JSON member's value in the timeline: a text slot (filled per run) or a fixed value.
    private enum Value {
        case text
        case string(String)
        case number(Double)
    }

    /// One step of the timeline: the time to let pass, then a request.
    private struct Step {
        var pause: Duration
        var method: String
        var path: String
        var members: [(String, Value)]
    }

    /// What one run handed the sink, the texts it sent and which requests were refused.
    private struct Outcome {
        var wakes: [(at: Duration, bytes: [UInt8])]
        var texts: [[String]]
        var refused: [Bool]
        var accepted: Int { refused.filter { !$0 }.count }
    }

    @Test(arguments: [UInt64(1), 2, 3])
    func theWakeStreamIsTheSameWhateverTheTaskText(seed: UInt64) throws {
        var random = SplitMix64(seed: seed)
        let timeline = Self.timeline(steps: 300, using: &random)
        var generator = SplitMix64(seed: seed &* 7919)
        let huge = try run(timeline, seed: seed) { _, _ in Self.randomText(using: &generator) }
        let standIns = try run(timeline, seed: seed) { step, slot in
            huge.refused[step] ? String(repeating: "x", count: 1001) : Self.standIn(for: huge.texts[step][slot])
        }
        #expect(huge.refused == standIns.refused, "the stand-ins keep every refusal")
        #expect(huge.accepted > 30 && huge.refused.contains(true), "both accepted and refused writes were tried")
        #expect(huge.wakes.count > 10, "the timeline made Wakes")
        #expect(huge.wakes.allSatisfy { $0.bytes.count == 12 })
        #expect(huge.wakes.allSatisfy { (try? WakeEnvelope(bytes: $0.bytes))?.bytes == $0.bytes })
        #expect(huge.wakes.map(\.at) == standIns.wakes.map(\.at))
        #expect(huge.wakes.map(\.bytes) == standIns.wakes.map(\.bytes), "no bit of a Wake depends on task text")
        FaultSuite.report(
            "wake-privacy-\(seed)",
            [
                "requests": "\(timeline.count)", "accepted": "\(huge.accepted)", "wakes": "\(huge.wakes.count)",
                "text-bytes": "\(huge.texts.joined().reduce(0) { $0 + $1.utf8.count })",
                "wake-sizes": "\(Set(huge.wakes.map(\.bytes.count)).sorted())",
            ])
    }

    /// Runs `timeline` on a fresh engine (the same seed: the same epoch), filling text slots with
    /// `fill(step, slot)`, and lets every timer fire at the end.
    private func run(_ timeline: [Step], seed: UInt64, fill: (Int, Int) -> String) throws -> Outcome {
        let board = try EngineFixture(seed: seed)
        board.engine.start()
        var texts: [[String]] = []
        var refused: [Bool] = []
        for (index, step) in timeline.enumerated() {
            board.runtime.advance(by: step.pause)
            var object: [String: Any] = [:]
            var used: [String] = []
            for (key, value) in step.members {
                switch value {
                case .text:
                    let text = fill(index, used.count)
                    used.append(text)
                    object[key] = text
                case let .string(fixed): object[key] = fixed
                case let .number(number): object[key] = number
                }
            }
            let body = try JSONSerialization.data(withJSONObject: object)
            let answer = board.engine.handleAgent(
                .init(method: step.method, path: step.path, headers: [:], body: Array(body)))
            refused.append(!(200..<300).contains(answer.status))
            texts.append(used)
        }
        board.runtime.advance(by: .seconds(5))
        return Outcome(wakes: board.sink.wakes.map { ($0.at, $0.envelope.bytes) }, texts: texts, refused: refused)
    }

    /// Starts, updates of every text field, phase and status changes, handoffs and ends of a few tasks with
    /// ids chosen here, with pauses around the coalescing window.
    private static func timeline(steps: Int, using random: inout SplitMix64) -> [Step] {
        var result: [Step] = []
        var started = 0
        for _ in 0..<steps {
            let pause = Duration.milliseconds(Int.random(in: 0...900, using: &random))
            let roll = Int.random(in: 0..<100, using: &random)
            if started == 0 || roll < 12 {
                started += 1
                let members: [(String, Value)] = [
                    ("request_id", .string("chat_privacy_\(started)")), ("task_title", .text), ("current_step", .text),
                ]
                result.append(Step(pause: pause, method: "POST", path: "/v1/tasks", members: members))
                continue
            }
            let path = "/v1/tasks/chat_privacy_\(Int.random(in: 1...started, using: &random))"
            let members: [(String, Value)]
            switch roll {
            case ..<70:
                let field = ["current_step", "current_action", "current_target", "current_app", "last_tool_name"]
                members = [
                    (field[Int.random(in: 0..<field.count, using: &random)], .text),
                    ("progress", .number(Double(Int.random(in: 0...100, using: &random)) / 100)),
                ]
            case ..<80:
                members = [
                    ("status", .string(Bool.random(using: &random) ? "running" : "needs_app")),
                    ("phase", .string(Bool.random(using: &random) ? "acting" : "waiting_user")),
                    ("current_step", .text),
                ]
            case ..<88:
                members = [
                    ("phase", .string("waiting_user")), ("current_action", .string("request_user_input")),
                    ("current_step", .text),
                ]
            default:
                let status = ["completed", "failed", "canceled"][Int.random(in: 0..<3, using: &random)]
                result.append(
                    Step(
                        pause: pause, method: "POST", path: path + "/end",
                        members: [("status", .string(status)), ("last_error", .text)]))
                continue
            }
            result.append(Step(pause: pause, method: "PATCH", path: path, members: members))
        }
        return result
    }

    /// Random text: mostly what an agent would send (printable, any script, within the limits), else hostile:
    /// controls, C1 and bidi controls, lone combining marks, private use, the supplementary planes, texts at
    /// and over every limit.
    private static func randomText(using random: inout SplitMix64) -> String {
        let ordinary: [ClosedRange<UInt32>] = [0x20...0x7E, 0xA0...0x2FF, 0x4E00...0x9FFF, 0x1F300...0x1FAFF]
        let hostile: [ClosedRange<UInt32>] = [
            0x00...0x1F, 0x7F...0x9F, 0x300...0x36F, 0x200B...0x202E, 0x2066...0x2069, 0xE000...0xF8FF,
            0x10000...0x10FFFF,
        ]
        let isHostile = Int.random(in: 0..<10, using: &random) < 3
        let lengths = isHostile ? [0, 1, 2, 200, 201, 501, 1001, 4000] : [1, 3, 12, 40, 120, 199]
        let length = lengths[Int.random(in: 0..<lengths.count, using: &random)]
        let ranges = isHostile ? ordinary + hostile : ordinary
        let main = ranges[Int.random(in: 0..<ranges.count, using: &random)]
        var scalars = String.UnicodeScalarView()
        for _ in 0..<length {
            let range =
                Int.random(in: 0..<10, using: &random) < 8
                ? main : ranges[Int.random(in: 0..<ranges.count, using: &random)]
            if let scalar = Unicode.Scalar(UInt32.random(in: range, using: &random)) { scalars.append(scalar) }
        }
        return String(scalars)
    }

    /// A short text valid in every field, standing for `text`: equal texts get equal stand-ins and different
    /// texts (but for a 64-bit hash collision) different ones; the empty text stays empty.
    private static func standIn(for text: String) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in text.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x100_0000_01b3
        }
        return text.isEmpty ? "" : "v" + String(hash, radix: 36)
    }
}
