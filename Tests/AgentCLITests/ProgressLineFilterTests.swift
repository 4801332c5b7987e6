import Testing

@testable import AgentCLI

@Suite("task run --progress-from-stdout: PROGRESS lines out, every other byte through")
struct ProgressLineFilterTests {
    typealias Report = ProgressLineFilter.Report

    /// Feeds `chunks` one after another, then the end of the stream.
    private func filter(_ chunks: [String]) -> (output: String, reports: [Report]) {
        var filter = ProgressLineFilter()
        var output: [UInt8] = []
        var reports: [Report] = []
        for chunk in chunks {
            let step = filter.feed(Array(chunk.utf8))
            output += step.output
            reports += step.reports
        }
        let rest = filter.finish()
        return (String(decoding: output + rest.output, as: UTF8.self), reports + rest.reports)
    }

    static let cases: [([String], String, [Report])] = [
        (["PROGRESS 0.4 Tapping Wi-Fi\n"], "", [Report(progress: 0.4, step: "Tapping Wi-Fi")]),
        (["PROGRESS 1\n"], "", [Report(progress: 1)]),
        (["PROGRESS 40%   Half  way \r\n"], "", [Report(progress: 0.4, step: "Half  way")]),
        (["PROGRESS .25\tTab\u{1B}[1mbed\u{1B}[0m\n"], "", [Report(progress: 0.25, step: "Tabbed")]),
        (["PROGRESS -0\n"], "", [Report(progress: 0)]),
        (["hello\nPROGRESS 0.5\nworld\n"], "hello\nworld\n", [Report(progress: 0.5)]),
        // Split anywhere, even inside the marker, it reads the same.
        (["PRO", "GRESS 0.", "7 S", "tep\nafter"], "after", [Report(progress: 0.7, step: "Step")]),
        // Not progress lines: passed through exactly.
        (["PROGRESS 1.5 too much\n"], "PROGRESS 1.5 too much\n", []),
        (["PROGRESS nan\n"], "PROGRESS nan\n", []),
        (["PROGRESS \n"], "PROGRESS \n", []),
        (["PROGRESSIVE rock\n"], "PROGRESSIVE rock\n", []),
        (["  PROGRESS 0.5\n"], "  PROGRESS 0.5\n", []),
        (["progress 0.5\n"], "progress 0.5\n", []),
        (["PRO"], "PRO", []),
        (["Password: "], "Password: ", []),
        // The last line may lack its newline.
        (["PROGRESS 0.9 Last"], "", [Report(progress: 0.9, step: "Last")]),
        (["\n\nPROGRESS 0.1\n"], "\n\n", [Report(progress: 0.1)]),
    ]

    @Test(arguments: cases)
    func readsProgressAndPassesTheRest(chunks: [String], output: String, reports: [Report]) {
        let result = filter(chunks)
        #expect(result.output == output)
        #expect(result.reports == reports)
    }

    @Test func aPromptIsPassedOnAsSoonAsItCannotBeAProgressLine() {
        var filter = ProgressLineFilter()
        #expect(filter.feed(Array("Continue? ".utf8)).output == Array("Continue? ".utf8))
        #expect(filter.feed(Array("yes\nPROG".utf8)).output == Array("yes\n".utf8), "PROG may start a progress line")
        #expect(filter.feed(Array("X".utf8)).output == Array("PROGX".utf8))
        #expect(
            filter.feed(Array(" PROGRESS 0.5\n".utf8)).output == Array(" PROGRESS 0.5\n".utf8), "not at a line start")
    }

    @Test func anOverlongLineIsPassedThroughWhole() {
        let line = "PROGRESS 0.5 " + String(repeating: "x", count: 5000) + "\n"
        let result = filter([line])
        #expect(result.output == line)
        #expect(result.reports.isEmpty)
    }

    @Test func aLongStepIsCutToWhatTheBoardKeeps() {
        let result = filter(["PROGRESS 0.5 " + String(repeating: "é", count: 600) + "\n"])
        #expect(result.reports.first?.step?.unicodeScalars.count == 500)
    }

    @Test func reportsOfOneReadMergeIntoOneUpdate() {
        #expect(Report.merged([]) == nil)
        let merged = Report.merged([
            Report(progress: 0.1, step: "A"), Report(progress: 0.2, step: "B"), Report(progress: 0.3),
        ])
        #expect(merged == Report(progress: 0.3, step: "B"))
    }
}

@Suite struct RunHeartbeatTests {
    @Test func aThirdOfTheStaleTimeBetweenFiveSecondsAndAMinute() {
        let rows: [(UInt64?, Duration)] = [
            (nil, .seconds(60)), (300, .seconds(60)), (90, .seconds(30)), (10, .seconds(5)), (86_400, .seconds(60)),
        ]
        for (stale, interval) in rows {
            #expect(RunHeartbeat.interval(staleAfterSeconds: stale) == interval, "\(String(describing: stale))")
        }
    }
}
