import FoundationEssentials
import FuzzHarnesses
import Testing

/// The checked-in fuzz inputs through their harnesses in an ordinary build: the seeds stay real inputs (each is
/// accepted) and no seed or past crash breaks an invariant. scripts/fuzz runs the same harnesses under libFuzzer.
@Suite("Fuzz corpus")
struct FuzzCorpusTests {
    static let fuzz = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("fuzz")

    static func inputs(_ folder: String, _ harness: String) -> [(name: String, bytes: [UInt8])] {
        let directory = fuzz.appendingPathComponent(folder).appendingPathComponent(harness)
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        return names.sorted().compactMap { name in
            FileManager.default.contents(atPath: directory.appendingPathComponent(name).path).map { (name, Array($0)) }
        }
    }

    @Test(arguments: fuzzHarnesses.map { $0.name })
    func seedsAreAcceptedAndKeepTheInvariants(_ name: String) throws {
        let harness = try #require(fuzzHarnesses.first { $0.name == name })
        let seeds = Self.inputs("corpus", name)
        #expect(seeds.count >= 3, "fuzz/corpus/\(name) has \(seeds.count) seeds")
        for seed in seeds {
            let verdict: FuzzVerdict
            do {
                verdict = try harness.run(seed.bytes)
            } catch {
                Issue.record("\(name)/\(seed.name): \(error)")
                continue
            }
            #expect(verdict == .accepted, "\(name)/\(seed.name) is refused")
        }
    }

    @Test(arguments: fuzzHarnesses.map { $0.name })
    func pastCrashesKeepTheInvariants(_ name: String) throws {
        let harness = try #require(fuzzHarnesses.first { $0.name == name })
        for crash in Self.inputs("crashes", name) {
            do {
                _ = try harness.run(crash.bytes)
            } catch {
                Issue.record("\(name)/\(crash.name): \(error)")
            }
        }
    }
}
