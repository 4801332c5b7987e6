import Foundation

/// The checkout's files and the built products, for tests that look at what gets installed.
enum Repository {
    /// The package root: three levels above this file.
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().path

    static func text(_ relative: String) throws -> String {
        try String(contentsOfFile: "\(root)/\(relative)", encoding: .utf8)
    }

    static func files(in relative: String, suffix: String) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: "\(root)/\(relative)")
            .filter { $0.hasSuffix(suffix) }.sorted().map { "\(relative)/\($0)" }
    }

    /// Where `swift build` put aiden-board and friends: next to the test bundle.
    static var productsDirectory: String? {
        let candidates = [
            URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent().path,
            URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().path,
            "\(root)/.build/debug",
        ]
        return candidates.first { FileManager.default.isExecutableFile(atPath: "\($0)/aiden-board") }
    }
}

/// A scratch directory removed when the test is done.
final class Scratch {
    let path: String

    init(_ prefix: String = "aiden-deploy") throws {
        path =
            FileManager.default.temporaryDirectory.appendingPathComponent("\(prefix)-\(UUID().uuidString.prefix(8))")
            .path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }
}

struct CommandResult {
    var status: Int32
    var output: String
    var error: String
}

struct DeploymentTestError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// Runs a program to completion (killed after `timeoutSeconds`) and collects its output.
func run(
    _ executable: String, _ arguments: [String], environment: [String: String] = [:],
    directory: String? = nil, timeoutSeconds: Double = 120
) throws -> CommandResult {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    process.environment = ["PATH": "/usr/sbin:/usr/bin:/sbin:/bin", "LANG": "C.UTF-8"].merging(environment) { $1 }
    if let directory { process.currentDirectoryURL = URL(fileURLWithPath: directory) }
    let output = Pipe()
    let error = Pipe()
    process.standardOutput = output
    process.standardError = error
    try process.run()
    let group = DispatchGroup()
    let collected = Collected()
    DispatchQueue.global().async(group: group) { collected.output = output.fileHandleForReading.readDataToEndOfFile() }
    DispatchQueue.global().async(group: group) { collected.error = error.fileHandleForReading.readDataToEndOfFile() }
    let deadline = Date().addingTimeInterval(timeoutSeconds)
    while process.isRunning && Date() < deadline { usleep(10_000) }
    if process.isRunning { kill(process.processIdentifier, SIGKILL) }
    process.waitUntilExit()
    group.wait()
    return CommandResult(
        status: process.terminationStatus, output: String(decoding: collected.output, as: UTF8.self),
        error: String(decoding: collected.error, as: UTF8.self))
}

/// Output buffers filled by two reader threads and read after both finished.
private final class Collected: @unchecked Sendable {
    var output = Data()
    var error = Data()
}

/// The first of these tool paths that exists, if any.
func tool(_ candidates: String...) -> String? {
    candidates.first { FileManager.default.isExecutableFile(atPath: $0) }
}

/// `scripts/install` into a fresh staging root with the built binaries.
final class StagedInstall {
    let scratch: Scratch
    let prefix: String
    let result: CommandResult
    var root: String { scratch.path }

    init(prefix: String = "/usr", environment: [String: String] = [:]) throws {
        guard let products = Repository.productsDirectory else {
            throw DeploymentTestError("no built aiden-board next to the tests: run swift build first")
        }
        scratch = try Scratch("aiden-install")
        self.prefix = prefix
        result = try run(
            "/bin/bash", ["\(Repository.root)/scripts/install"],
            environment: ["DESTDIR": scratch.path, "PREFIX": prefix, "BIN_DIR": products].merging(environment) { $1 })
        guard result.status == 0 else {
            throw DeploymentTestError("scripts/install failed (\(result.status)): \(result.error)")
        }
    }

    func path(_ relative: String) -> String { "\(root)/\(relative)" }
}
