import CLibFuzzer
import FoundationEssentials

#if canImport(Glibc)
import Glibc
#endif

/// The body of every `fuzz-<name>` executable.
///
/// Built by `scripts/fuzz` (`-sanitize=fuzzer,address -DAIDEN_LIBFUZZER`), it hands the process to libFuzzer's
/// driver. In an ordinary build, which links no libFuzzer, it replays the files and directories named on the
/// command line through the harness instead: a crash found by the fuzzer reproduces there, under a debugger.
package enum FuzzDriver {
    /// libFuzzer's callback for `Harness`. A broken invariant stops the process, so libFuzzer keeps the input.
    package static func test<Harness: FuzzHarness>(
        _: Harness.Type, _ data: UnsafePointer<UInt8>?, _ size: Int
    ) -> Int32 {
        let input = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
        do {
            _ = try Harness.run(input)
        } catch {
            fatalError("fuzz-\(Harness.name): invariant broken: \(error)")
        }
        return 0
    }

    /// `testOneInput` is the executable's `LLVMFuzzerTestOneInput`, which calls `test` with its harness.
    package static func main<Harness: FuzzHarness>(
        _ harness: Harness.Type, testOneInput: @convention(c) (UnsafePointer<UInt8>?, Int) -> Int32
    ) -> Never {
        #if AIDEN_LIBFUZZER
        var argc = CommandLine.argc
        var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
        exit(LLVMFuzzerRunDriver(&argc, &argv, testOneInput))
        #else
        exit(replay(harness, paths: Array(CommandLine.arguments.dropFirst())))
        #endif
    }

    /// Runs every file (directories: every file in them) through `Harness`; 1 when one breaks an invariant.
    static func replay<Harness: FuzzHarness>(_: Harness.Type, paths: [String]) -> Int32 {
        guard !paths.isEmpty else {
            print("usage: fuzz-\(Harness.name) FILE|DIRECTORY...  (replays inputs; scripts/fuzz fuzzes)")
            return 2
        }
        var counts: [FuzzVerdict: Int] = [:]
        for file in paths.flatMap(files) {
            guard let data = FileManager.default.contents(atPath: file) else {
                print("fuzz-\(Harness.name): cannot read \(file)")
                return 2
            }
            do {
                counts[try Harness.run(Array(data)), default: 0] += 1
            } catch {
                print("fuzz-\(Harness.name): \(file): invariant broken: \(error)")
                return 1
            }
        }
        print(
            "fuzz-\(Harness.name): \(counts.values.reduce(0, +)) inputs, \(counts[.accepted] ?? 0) accepted, "
                + "\(counts[.rejected] ?? 0) rejected, no invariant broken")
        return 0
    }

    private static func files(_ path: String) -> [String] {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: path) else { return [path] }
        return names.sorted().map { path + "/" + $0 }
    }
}
