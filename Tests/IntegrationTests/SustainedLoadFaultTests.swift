import Foundation
import TestSupport
import Testing

/// The fault suite's soak test (docs/fault-suite.md): the built aiden-board under a sustained, paced request
/// rate (an agent starting, updating and ending tasks through the store's capacity, a phone reading every
/// resource it reads) for 30 s in CI and 10 minutes in the long form, on a store already at its capacity. Its resident memory, read from
/// `/proc/PID/status`, must be flat once warmed up (the last third may exceed the warmed-up level by at most
/// `tolerance`), and its file descriptors (the fewest of several looks, so requests open at that moment do not count) must not grow.
@Suite(.serialized) struct SustainedLoadFaultTests {
    /// Allocator noise on top of the warmed-up resident set, in KiB.
    static let toleranceKilobytes = 4 * 1024

    @Test func residentMemoryStaysFlatUnderASustainedRequestRate() throws {
        let seconds = FaultSuite.size(short: 30.0, long: 600.0)
        let board = try BoardProcess()
        try board.start()
        defer { board.stop() }
        let probe = ProcessProbe(pid: try #require(board.process?.processIdentifier))
        let endpoints = BoardEndpoints(board)
        // The store near its capacity (256 tasks) and the transition ring full before anything is measured; the
        // load's own tasks fill the rest during the warm-up. What grows after it is not data the board must keep.
        for index in 0..<210 {
            let id = "fill_\(index)"
            #expect(
                endpoints.agent("POST", "/v1/tasks", body: #"{"task_title":"Fill","request_id":"\#(id)"}"#)?.status
                    == 201)
            #expect(endpoints.agent("POST", "/v1/tasks/\(id)/end", body: #"{"status":"completed"}"#)?.status == 200)
        }
        let stop = Mutexed(false)
        let counts = Mutexed((agent: 0, phone: 0, failed: 0))
        let workers = DispatchGroup()
        // The agent: 50 requests a second. Each task gets a start, updates and an end; ended tasks stay for the
        // retention, so the store fills to its capacity and evicts from then on.
        DispatchQueue.global().async(group: workers) {
            var index = -1
            var next = monotonicSeconds()
            while !stop.get() {
                index += 1
                let task = "soak_\(index / 10)"
                let (method, path, body): (String, String, String)
                switch index % 10 {
                case 0:
                    (method, path, body) = (
                        "POST", "/v1/tasks", #"{"task_title":"Soak \#(index)","request_id":"\#(task)"}"#
                    )
                case 9: (method, path, body) = ("POST", "/v1/tasks/\(task)/end", #"{"status":"completed"}"#)
                default:
                    (method, path, body) = (
                        "PATCH", "/v1/tasks/\(task)", #"{"current_step":"step \#(index)","progress":0.\#(index % 10)}"#
                    )
                }
                let ok = endpoints.agent(method, path, body: body).map { (200..<300).contains($0.status) } ?? false
                counts.update { ok ? ($0.agent += 1) : ($0.failed += 1) }
                next += 0.02
                let wait = next - monotonicSeconds()
                if wait > 0 { usleep(UInt32(wait * 1_000_000)) }
            }
        }
        // The phone: 100 reads a second, with and without the ETag it has.
        DispatchQueue.global().async(group: workers) {
            var etag: String?
            var index = 0
            var next = monotonicSeconds()
            while !stop.get() {
                index += 1
                let path = ["/api/live-activity/current", "/api/live-activity/events?since=0", "/status"][index % 3]
                let headers = index % 2 == 0 ? etag.map { [("If-None-Match", $0)] } ?? [] : []
                let answer = endpoints.phone(path, headers: headers)
                if path.hasSuffix("current") { etag = answer?.headers["etag"] ?? etag }
                let ok = answer.map { $0.status == 200 || $0.status == 304 } ?? false
                counts.update { ok ? ($0.phone += 1) : ($0.failed += 1) }
                next += 0.01
                let wait = next - monotonicSeconds()
                if wait > 0 { usleep(UInt32(wait * 1_000_000)) }
            }
        }

        var samples: [(at: Double, kilobytes: Int)] = []
        let started = monotonicSeconds()
        var fdsAtStart = Int.max
        var fdsAtEnd = Int.max
        while monotonicSeconds() - started < seconds {
            if let rss = probe.residentKilobytes() { samples.append((monotonicSeconds() - started, rss)) }
            let elapsed = monotonicSeconds() - started
            if elapsed < 5 { fdsAtStart = min(fdsAtStart, Self.fewestDescriptors(probe)) }
            if elapsed > seconds - 5 { fdsAtEnd = min(fdsAtEnd, Self.fewestDescriptors(probe)) }
            usleep(1_000_000)
        }
        stop.set(true)
        workers.wait()

        let warmedUp = samples.filter { $0.at <= seconds / 3 }.last?.kilobytes ?? 0
        let lastThird = samples.filter { $0.at >= seconds * 2 / 3 }.map(\.kilobytes)
        let done = counts.get()
        FaultSuite.report(
            "sustained-load",
            [
                "seconds": "\(Int(seconds))", "agent-requests": "\(done.agent)", "phone-requests": "\(done.phone)",
                "rate": "\(Int(Double(done.agent + done.phone) / seconds))/s", "failed": "\(done.failed)",
                "rss-first": "\(samples.first?.kilobytes ?? 0)KiB", "rss-warmed-up": "\(warmedUp)KiB",
                "rss-last-third-max": "\(lastThird.max() ?? 0)KiB", "rss-end": "\(samples.last?.kilobytes ?? 0)KiB",
                "fds-start": "\(fdsAtStart)", "fds-end": "\(fdsAtEnd)",
            ])
        #expect(done.failed == 0)
        #expect(done.agent > Int(seconds) * 20 && done.phone > Int(seconds) * 40, "the rate was sustained")
        #expect(!lastThird.isEmpty && lastThird.allSatisfy { $0 <= warmedUp + Self.toleranceKilobytes })
        #expect(fdsAtEnd <= fdsAtStart, "no descriptor leak")
    }

    /// The fewest descriptors in 10 looks 20 ms apart: the board's own, without the requests open at that moment.
    private static func fewestDescriptors(_ probe: ProcessProbe) -> Int {
        (0..<10).map { _ in
            defer { usleep(20_000) }
            return probe.openDescriptors() ?? Int.max
        }.min() ?? Int.max
    }
}
